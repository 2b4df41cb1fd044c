import { keepPreviousData, useMutation, useQuery, useQueryClient, type UseQueryOptions } from '@tanstack/react-query';
import type { CallArgs } from '../../../contract/api-client.js';
import type { ReplyOf } from '../../../contract/route.js';
import type { Operation, Routes } from '../../../contract/routes/route-table.js';
import { api } from './client.js';

// Reading and changing through the contract's operations, cached by TanStack Query. A read's key
// is its operation and parameters; any change marks every read stale, so whatever the change
// touched (a count, a stage, a list elsewhere) is read again: simpler and surer than naming keys.

type Args<O extends Operation> = CallArgs<Routes[O]>;
type Reply<O extends Operation> = ReplyOf<Routes[O]>;

export function useOp<O extends Operation>(operation: O, args?: Args<O>, options: Partial<UseQueryOptions<Reply<O>>> = {}) {
  return useQuery<Reply<O>>({
    queryKey: [operation, args?.params ?? null, args?.body ?? null],
    queryFn: () => (api.call as (o: O, a?: Args<O>) => Promise<Reply<O>>)(operation, args),
    placeholderData: keepPreviousData,
    ...options,
  });
}

export function useChange<O extends Operation>(operation: O, onDone?: (reply: Reply<O>) => void) {
  const queries = useQueryClient();
  return useMutation<Reply<O>, Error, Args<O>>({
    mutationFn: (args) => (api.call as (o: O, a?: Args<O>) => Promise<Reply<O>>)(operation, args),
    onSuccess: async (reply) => {
      await queries.invalidateQueries();
      onDone?.(reply);
    },
  });
}

/** For changes that are not one operation (an upload, two calls in a row). */
export function useAction<T, A>(run: (args: A) => Promise<T>, onDone?: (reply: T) => void) {
  const queries = useQueryClient();
  return useMutation<T, Error, A>({
    mutationFn: run,
    onSuccess: async (reply) => {
      await queries.invalidateQueries();
      onDone?.(reply);
    },
  });
}

import { keepPreviousData, useMutation, useQuery, useQueryClient, type UseQueryOptions } from '@tanstack/react-query';
import type { CallArgs, ReplyOf, Operation, Routes } from '@demo-rooms/contract';
import { api } from './client.js';
import { isStatus } from './refusal-words.js';

// Reading and changing through the contract's operations, cached by TanStack Query. A read's key
// is its operation and parameters; any change marks every read stale, so whatever the change
// touched (a count, a stage, a list elsewhere) is read again: simpler and surer than naming keys.

type Args<O extends Operation> = CallArgs<Routes[O]>;
type Reply<O extends Operation> = ReplyOf<Routes[O]>;

/**
 * A sign-in in another tab replaces this browser's cookie and ends the session it replaced, so a
 * read sent just before comes back 401 though the browser is signed in. Asked again, the read
 * carries the new cookie; only a second 401 means signed out (and sends the page to /login).
 */
async function readSignedIn<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (err) {
    if (!isStatus(err, 401)) throw err;
    return read();
  }
}

export function useOp<O extends Operation>(operation: O, args?: Args<O>, options: Partial<UseQueryOptions<Reply<O>>> = {}) {
  return useQuery<Reply<O>>({
    queryKey: [operation, args?.params ?? null, args?.body ?? null],
    queryFn: () => readSignedIn(() => (api.call as (o: O, a?: Args<O>) => Promise<Reply<O>>)(operation, args)),
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

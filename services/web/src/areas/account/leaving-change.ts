import { useMutation } from '@tanstack/react-query';
import type { CallArgs, ReplyOf, Operation, Routes } from '@demo-rooms/contract';
import { api } from '../../api/client.js';

// A change after which this browser is signed out (deleting the account, signing out everywhere).
// useChange would read everything again first: those reads answer 401 and the frame would send the
// browser to /login?next=… while this page sends it to /login, two navigations racing. Here
// nothing is read again; the page just leaves.

export function useLeavingChange<O extends Operation>(operation: O, to = '/login') {
  return useMutation<ReplyOf<Routes[O]>, Error, CallArgs<Routes[O]>>({
    mutationFn: (args) => (api.call as (o: O, a?: CallArgs<Routes[O]>) => Promise<ReplyOf<Routes[O]>>)(operation, args),
    onSuccess: () => window.location.replace(to),
  });
}

import { ApiError, ContractError, createClient, pathOf, routes, type Operation } from '@demo-rooms/contract';

// The contract's typed client, on this origin with the session cookie. Every reply is checked
// against the contract's schemas; the browser adds Origin to every POST, which the API's CSRF
// rule asks of cookie sessions.
export const api = createClient({ baseUrl: '' });

export { ApiError, ContractError };

/** The address of an operation that answers bytes (an image), for <img src>. */
export function addressOf(operation: Operation, params: Record<string, string> = {}): string {
  return pathOf(routes[operation], params);
}

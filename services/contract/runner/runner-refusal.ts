import type { CopyView } from './runner-api.schema.js';

/**
 * The runner's one refusal, on both sides of the wire: the runner throws it and answers
 * `{error, copy?}` with its status; the room's client throws it again from that answer.
 */
export class RunnerRefusal extends Error {
  readonly status: number;
  readonly copy?: CopyView;

  constructor(status: number, message: string, copy?: CopyView) {
    super(message);
    this.status = status;
    this.copy = copy;
    this.name = 'RunnerRefusal';
  }
}

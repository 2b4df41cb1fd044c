import { describe, expect, it } from 'vitest';
import { helloBody, helloProblem } from './arrival.js';

const ask = { name: true, email: false, suggestedName: null, company: false, suggestedCompany: null };

describe('the who-are-you prompt', () => {
  it('sends the name, and the email and company only when asked', () => {
    const fields: Record<string, string> = { name: 'Ada', email: 'ada@example.com', company: ' Analytical ' };
    const field = (n: string) => fields[n];
    expect(JSON.stringify(helloBody(ask, field))).toBe('{"name":"Ada"}');
    expect(JSON.stringify(helloBody({ ...ask, email: true, company: true }, field))).toBe(
      '{"name":"Ada","email":"ada@example.com","company":" Analytical "}',
    );
    expect(helloBody({ ...ask, company: true }, (n) => (n === 'company' ? '  ' : fields[n]))).toEqual({ name: 'Ada' });
  });

  it('says the first issue of a refusal', () => {
    expect(helloProblem({ issues: [{ path: 'email', message: 'Invalid email' }] } as never)).toBe('Invalid email');
    expect(helloProblem({})).toBe('Please check your answer.');
  });
});

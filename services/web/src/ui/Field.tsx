import { useId, type InputHTMLAttributes, type ReactNode } from 'react';
import { fieldProblem } from '../api/refusal-words.js';

/** A labelled input with the API's words about it (a 400's issue for this field) beneath. */
export function Field({
  label,
  error,
  field,
  hint,
  ...input
}: InputHTMLAttributes<HTMLInputElement> & {
  label: ReactNode;
  error?: unknown;
  /** The field's name in the API's `issues`; the input's name by default. */
  field?: string;
  hint?: ReactNode;
}) {
  const id = useId();
  const problem = fieldProblem(error, field ?? input.name ?? '');
  return (
    <div className="field">
      <label htmlFor={input.id ?? id}>{label}</label>
      <input
        id={id}
        aria-invalid={problem ? true : undefined}
        aria-describedby={problem ? `${id}-problem` : hint ? `${id}-hint` : undefined}
        {...input}
      />
      {hint && !problem && (
        <p className="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      {problem && (
        <p className="problem" id={`${id}-problem`}>
          {problem}
        </p>
      )}
    </div>
  );
}

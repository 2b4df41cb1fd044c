import { useEffect, type ReactNode } from 'react';

/** The frame of the pages met before or around sign-in: one column, the product's name, no areas. */
export function Plain({ title, children }: { title: string; children: ReactNode }) {
  useEffect(() => {
    document.title = `${title} · Demo rooms`;
  }, [title]);
  return (
    <div className="plain">
      <p className="wordmark">Demo rooms</p>
      <main>{children}</main>
    </div>
  );
}

/** The line that says how a step went, read out by screen readers as it changes. */
export function Status({ text, problem }: { text: string; problem?: boolean }) {
  return (
    <p role="status" aria-live="polite" className={problem ? 'problem' : undefined}>
      {text}
    </p>
  );
}

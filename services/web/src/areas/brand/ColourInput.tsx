import { useEffect, useId, useState } from 'react';

const HEX = /^#[0-9a-fA-F]{6}$/;

/** A colour picked or typed as #rrggbb; the typed text is passed on only once it is a colour. */
export function ColourInput({
  label,
  value,
  onChange,
  placeholder,
}: {
  label: string;
  value: string;
  onChange: (hex: string) => void;
  placeholder?: string;
}) {
  const id = useId();
  const [text, setText] = useState(value);
  useEffect(() => setText(value), [value]);
  const bad = text !== '' && !HEX.test(text);
  return (
    <div className="field colour-input">
      <label htmlFor={`${id}-hex`}>{label}</label>
      <div className="row">
        <input
          type="color"
          aria-label={`${label} picker`}
          value={HEX.test(value) ? value.toLowerCase() : placeholder && HEX.test(placeholder) ? placeholder.toLowerCase() : '#000000'}
          onChange={(e) => onChange(e.target.value)}
        />
        <input
          id={`${id}-hex`}
          className="hex"
          value={text}
          placeholder={placeholder}
          spellCheck={false}
          autoComplete="off"
          aria-invalid={bad || undefined}
          aria-describedby={bad ? `${id}-problem` : undefined}
          onChange={(e) => {
            setText(e.target.value.trim());
            if (HEX.test(e.target.value.trim())) onChange(e.target.value.trim().toLowerCase());
          }}
        />
      </div>
      {bad && (
        <p className="problem" id={`${id}-problem`}>
          Write a colour as # and six hex digits, like #1d4ed8.
        </p>
      )}
    </div>
  );
}

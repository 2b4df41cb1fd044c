import { ProductEventKind } from '@demo-rooms/contract';

/** Each event kind in the builder's words. */
export const kindWords: Record<ProductEventKind, string> = {
  'link.opened': 'Link opened',
  'visit.ended': 'Visit ended',
  'next_step.answered': 'Next step answered',
  'comment.left': 'Comment left',
  'link.stage_changed': 'Stage changed',
  'usage.month_closed': 'Usage month closed',
};

/** The kinds an endpoint hears, as checkboxes. */
export function KindChoice({
  legend,
  value,
  onChange,
}: {
  legend: string;
  value: ProductEventKind[];
  onChange: (kinds: ProductEventKind[]) => void;
}) {
  return (
    <fieldset className="webhook-kinds">
      <legend>{legend}</legend>
      {ProductEventKind.options.map((kind) => (
        <label key={kind} className="row">
          <input
            type="checkbox"
            checked={value.includes(kind)}
            onChange={(event) => onChange(event.target.checked ? [...value, kind] : value.filter((k) => k !== kind))}
          />
          {kindWords[kind]} <code>{kind}</code>
        </label>
      ))}
    </fieldset>
  );
}

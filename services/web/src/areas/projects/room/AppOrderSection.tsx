import { useChange, useOp } from '../../../api/hooks.js';
import { Async } from '../../../ui/Async.js';
import { Section } from '../../../ui/Page.js';
import { Refusal } from '../../../ui/Refusal.js';
import { OrderList } from './OrderList.js';

/** The order of the live build's apps (the room's tabs); the manifest's order until changed. */
export function AppOrderSection({ projectId }: { projectId: string }) {
  const setup = useOp('getRoomSetup', { params: { projectId } });
  const builds = useOp('listBuilds', { params: { projectId } });
  const order = useChange('orderApps');
  const live = builds.data?.find((b) => b.live);
  const names = new Map(live?.manifest.apps.map((a) => [a.id, a.name] as const) ?? []);
  return (
    <Section title="App order">
      <Async query={setup} lines={3} isEmpty={(s) => !live || (s.appOrder ?? []).length === 0} empty={<p>No live build yet: its apps show here once you deploy.</p>}>
        {(s) => {
          const ids = s.appOrder ?? live?.manifest.apps.map((a) => a.id) ?? [];
          return (
            <>
              <p className="hint">The room shows its apps as tabs in this order.</p>
              <OrderList
                label="Apps in order"
                items={ids}
                keyOf={(id) => id}
                name={(id) => names.get(id) ?? id}
                busy={order.isPending}
                onMove={(next) => order.mutate({ params: { projectId }, body: { ids: next } })}
              />
              <Refusal error={order.error} />
            </>
          );
        }}
      </Async>
    </Section>
  );
}

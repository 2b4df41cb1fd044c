import { useChange, useOp } from '../../../api/hooks.js';
import { Skeleton } from '../../../ui/Async.js';
import { Section } from '../../../ui/Page.js';
import { Refusal } from '../../../ui/Refusal.js';
import { OrderList } from './OrderList.js';

/** The order of the live build's apps (the room's tabs); the manifest's order until changed. */
export function AppOrderSection({ projectId }: { projectId: string }) {
  const setup = useOp('getRoomSetup', { params: { projectId } });
  const builds = useOp('listBuilds', { params: { projectId } });
  const order = useChange('orderApps');
  return <Section title="App order">{setup.isPending || builds.isPending ? <Skeleton lines={3} /> : apps()}</Section>;

  function apps() {
    const failed = setup.data ? builds.error : setup.error;
    if (failed && (!setup.data || !builds.data)) return <Refusal error={failed} />;
    const live = builds.data?.find((b) => b.live);
    if (!live)
      return (
        <div className="empty">
          <p>No live build yet: its apps show here once you deploy.</p>
        </div>
      );
    const names = new Map(live.manifest.apps.map((a) => [a.id, a.name] as const));
    // Null means the manifest's order.
    const ids = setup.data?.appOrder ?? live.manifest.apps.map((a) => a.id);
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
  }
}

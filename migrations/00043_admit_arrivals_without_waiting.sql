-- Admission of a batch of arrivals without waiting on another host (issue 43, docs/scale.md
-- "Twelfth round"). admit_arrivals (00035) takes every workspace's lock of its batch, waiting: a
-- crowd's batch of 500 holds most of its busy workspaces, so hosts whose batches share them ran
-- one after another however many hosts there were (the 10,000 burst: twenty batches in a line,
-- 0.4-3.6 s each). admit_arrivals_not_waiting takes the locks it can at once
-- (pg_try_advisory_xact_lock), hands the asks of those workspaces to admit_arrivals (which takes
-- them again at once: a transaction's advisory locks are its own, and then the host's lock, as
-- always), and answers the others `busy`: nothing read or written for them. The host's batcher
-- asks them again first in its next batch (runner/copies/admission-batcher.ts); an ask busy a few
-- times is sent to admit_arrivals itself, which waits for every lock in byte order, and Postgres
-- grants a lock to its waiters before any later try, so no ask waits for ever behind other
-- hosts' tries.
--
-- The caps are exact as before: every count and decision is admit_arrivals', made under the
-- workspace's lock and the host's. Rows as admit_arrivals answers them, `i` each ask's index in
-- p_asks, and kind `busy` for the asks not decided.
create function admit_arrivals_not_waiting(p_runner text, p_host_cap int, p_asks jsonb)
returns table (i int, kind text, reason text, copy_id uuid)
language plpgsql as $$
#variable_conflict use_column
declare
  held text[];
begin
  held := array(select x from (select distinct a->>'workspaceId' as x from jsonb_array_elements(p_asks) a) s
                where pg_try_advisory_xact_lock(hashtext('runner.workspace:' || x)));
  return query
    with asks as (
      select a, (n - 1)::int as k, a->>'workspaceId' = any(held) as mine
      from jsonb_array_elements(p_asks) with ordinality as t(a, n)
    ),
    taken as (select a, k, (row_number() over (order by k) - 1)::int as j from asks where mine),
    decided as (
      select d.i, d.kind, d.reason, d.copy_id
      from admit_arrivals(p_runner, p_host_cap, (select jsonb_agg(a order by k) from taken)) d
      where cardinality(held) > 0
    )
    select t.k, d.kind, d.reason, d.copy_id from decided d join taken t on t.j = d.i
    union all
    select k, 'busy', null::text, null::uuid from asks where not mine;
end;
$$;

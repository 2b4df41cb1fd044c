-- Webhook endpoints and their owners (security-4 L5; docs/decisions/webhooks.md): who added
-- each endpoint, so the owners can review the ones a person no longer in the workspace left behind,
-- and a notice to the owners whenever one is added.

-- No foreign key: the id outlives the person's account, so an endpoint whose maker was deleted
-- still shows as left by someone gone. Null for endpoints made before this column.
alter table webhook_endpoints add column created_by uuid;

alter table notices drop constraint notices_kind_check;
alter table notices add constraint notices_kind_check
  check (kind in ('listing.blocked', 'listing.pulled', 'listing.takedown', 'appeal.upheld', 'appeal.denied', 'webhook.disabled', 'webhook.added'));

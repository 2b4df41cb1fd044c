-- A static build's identity by content (issue 29): the sha256 of its files' paths and contents
-- (services/contract/static-digest.ts), written by the unpack worker. A container build's is its
-- image id, already in `image`. Null for static builds made before.
alter table builds add column digest text;

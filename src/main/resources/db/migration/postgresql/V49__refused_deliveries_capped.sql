-- Refused deliveries (a bad signature: anyone who knows a webhook URL can send them) are recorded at most
-- ARBOR_REFUSED_DELIVERIES_PER_HOUR times per connection and clock hour: refused_window_start is the hour being
-- counted (epoch milliseconds), refused_window_recorded how many it recorded, refused_not_recorded how many refused
-- deliveries, all hours together, were counted instead of recorded.
ALTER TABLE event_shared_connections ADD COLUMN refused_window_start BIGINT NOT NULL DEFAULT 0;
ALTER TABLE event_shared_connections ADD COLUMN refused_window_recorded INTEGER NOT NULL DEFAULT 0;
ALTER TABLE event_shared_connections ADD COLUMN refused_not_recorded BIGINT NOT NULL DEFAULT 0;
-- body_bytes: how many bytes a refused or unreadable delivery's body had when body keeps only a prefix of it; NULL
-- when body is whole.
ALTER TABLE event_deliveries ADD COLUMN body_bytes BIGINT;
-- pending_projects: the projects whose triggers the waiting round fires (a JSON list: a member's replay); NULL, all.
ALTER TABLE event_deliveries ADD COLUMN pending_projects TEXT;
-- refused deliveries are pruned sooner than the others
CREATE INDEX event_deliveries_by_status ON event_deliveries (status, received_at);

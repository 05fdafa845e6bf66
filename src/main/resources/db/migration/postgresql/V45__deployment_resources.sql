-- Deployments in no project (an admin's made without one, a pipeline step's), and the resources each replica asks
-- for (a JSON object {cpu, memory_bytes, gpus, gpu_type}, NULL when the deployment asks for none). Names stay unique
-- in a project, and among the deployments in none.
ALTER TABLE deployments ALTER COLUMN project_id DROP NOT NULL;
ALTER TABLE deployments ADD COLUMN resources TEXT;
CREATE UNIQUE INDEX deployments_names_in_no_project ON deployments (name) WHERE project_id IS NULL;

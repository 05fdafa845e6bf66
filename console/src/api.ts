// The typed client of the Arbor API: every call the console makes goes through here, with the tab's token as a
// Bearer header and the current project as X-Project-Id. Failures arrive as ApiError, the envelope's fields intact.

const TOKEN_KEY = 'arbor.token';
const PROJECT_KEY = 'arbor.project';
const STUDIO_KEY = 'arbor.studio-key';

/** The token lives in sessionStorage: this tab only, gone when it closes. */
export const session = {
  token: (): string | null => sessionStorage.getItem(TOKEN_KEY),
  project: (): string | null => sessionStorage.getItem(PROJECT_KEY),
  signIn(token: string) {
    sessionStorage.setItem(TOKEN_KEY, token);
  },
  chooseProject(project: string | null) {
    if (project) sessionStorage.setItem(PROJECT_KEY, project);
    else sessionStorage.removeItem(PROJECT_KEY);
  },
  signOut() {
    sessionStorage.removeItem(TOKEN_KEY);
    sessionStorage.removeItem(PROJECT_KEY);
    sessionStorage.removeItem(STUDIO_KEY);
  },
};

export interface Problem {
  code: string;
  param: string | null;
  message: string;
}

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly param: string | null;
  readonly details: Problem[];

  constructor(status: number, problem: Problem, details: Problem[]) {
    super(problem.message);
    this.status = status;
    this.code = problem.code;
    this.param = problem.param;
    this.details = details.length > 0 ? details : [problem];
  }
}

export interface Page<T> {
  object: 'list';
  data: T[];
  has_more: boolean;
}

export interface Principal {
  token_id: string | null;
  role: 'admin' | 'member';
  projects: string[];
}

export interface Project {
  id: string;
  name: string;
}

export interface CredentialField {
  field: string;
  type: string;
  required: boolean;
  secret: boolean;
  description: string;
  default?: unknown;
}

/** The credentials a custom gateway of one auth type takes (`GET /connectors/custom/credential-schemas`). */
export interface CredentialSchema {
  object: 'connector.credential_schema';
  auth_type: 'none' | 'headers' | 'oauth';
  fields: CredentialField[];
}

export interface Connector {
  id: string;
  name: string;
  provider: string;
  category: string;
  description: string;
  url: string;
  transport: string;
  auth_type: 'none' | 'headers' | 'oauth';
  documentation_url: string | null;
  built_in: boolean;
  credential_schema?: CredentialField[];
}

export interface Scope {
  enabled: boolean;
  global: boolean;
  projects: string[];
}

export interface Gateway {
  id: string;
  name: string;
  url?: string;
  transport: string;
  auth_type: string;
  connector_id?: string | null;
  scope: Scope;
  clients: string[];
  description: string;
  authorization: string;
  source: 'registry' | 'custom';
}

export interface Tool {
  id: string;
  name: string;
  title?: string | null;
  description?: string | null;
}

export interface FetchedTools {
  added: string[];
  changed: string[];
  removed: string[];
  unchanged: number;
  total: number;
}

export interface OAuthStart {
  authorization_url: string;
  state: string;
}

export interface OAuthStatus {
  status: string;
  error?: string | null;
}

export interface DescriptorField {
  key: string;
  label: string;
  type: 'string' | 'url';
  secret: boolean;
  required: boolean;
  generated?: boolean;
}

export interface Descriptor {
  provider: string;
  name: string;
  category: string;
  documentation_url: string;
  credentials: DescriptorField[];
  event_types: { type: string; description: string }[];
}

export interface EventConnection {
  id: string;
  name: string;
  provider: string;
  global: boolean;
  project_ids: string[];
  webhook_url?: string;
  signing_secret?: string;
  subscriptions_removed?: number;
}

export interface Delivery {
  id: string;
  status: 'accepted' | 'refused' | 'unreadable';
  type: string | null;
  received_at: number;
  signature: { valid: boolean; detail: string | null; secret: 'current' | 'previous' | null };
}

type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

/** The headers every call of the console sends: what it accepts, the token (the tab's unless a call names another
 * secret, such as the studio's own key) and the current project. */
function headersFor(accept: string, bearer: string | null = session.token()): Record<string, string> {
  const headers: Record<string, string> = { Accept: accept };
  if (bearer) headers.Authorization = `Bearer ${bearer}`;
  const project = session.project();
  if (project) headers['X-Project-Id'] = project;
  return headers;
}

async function call<T>(method: Method, path: string, body?: unknown, bearer: string | null = session.token()): Promise<T> {
  const headers = headersFor('application/json', bearer);
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const response = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  const json = text ? JSON.parse(text) : null;
  if (!response.ok) {
    const error = json?.error;
    const problem: Problem = {
      code: error?.code ?? 'http_' + response.status,
      param: error?.param ?? null,
      message: error?.message ?? `The server answered ${response.status}.`,
    };
    throw new ApiError(response.status, problem, error?.details ?? []);
  }
  return json as T;
}

const q = (params: Record<string, string | number | boolean | undefined>) => {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== '') search.set(key, String(value));
  }
  const text = search.toString();
  return text ? '?' + text : '';
};
const id = encodeURIComponent;

export const api = {
  me: () => call<Principal>('GET', '/auth/me'),
  projects: () => call<Page<Project>>('GET', '/projects?limit=100'),

  registry: (search: string) => call<Page<Connector>>('GET', '/connectors/registry' + q({ q: search, limit: 100 })),
  connector: (connectorId: string) => call<Connector>('GET', `/connectors/registry/${id(connectorId)}`),
  addGateway: (body: Record<string, unknown>) => call<Gateway>('POST', '/connectors/gateways', body),
  addCustom: (body: Record<string, unknown>) => call<Gateway>('POST', '/connectors/custom', body),
  customCredentialSchemas: () => call<Page<CredentialSchema>>('GET', '/connectors/custom/credential-schemas'),
  configured: () => call<Page<Gateway>>('GET', '/connectors/configured?include_disabled=true&limit=100'),
  toggle: (gatewayId: string, enabled: boolean) =>
    call<Gateway>('PATCH', `/connectors/configured/${id(gatewayId)}/toggle`, { enabled }),
  updateGateway: (gatewayId: string, body: Record<string, unknown>) =>
    call<Gateway>('PATCH', `/connectors/configured/${id(gatewayId)}`, body),
  deleteGateway: (gatewayId: string) => call<unknown>('DELETE', `/connectors/gateways/${id(gatewayId)}`),

  available: () => call<Page<Gateway>>('GET', '/connectors/available?limit=100'),
  startOAuth: (gatewayId: string, returnUrl: string) =>
    call<OAuthStart>('POST', `/connectors/${id(gatewayId)}/oauth/initiate`, { return_url: returnUrl }),
  finishOAuth: (params: Record<string, string>) => call<OAuthStatus>('POST', '/connectors/oauth/callback', params),
  oauthStatus: (gatewayId: string) => call<OAuthStatus>('GET', `/connectors/${id(gatewayId)}/oauth/status`),
  fetchTools: (gatewayId: string) => call<FetchedTools>('POST', `/connectors/${id(gatewayId)}/fetch-tools`),
  tools: (gatewayId: string) => call<Page<Tool>>('GET', `/connectors/${id(gatewayId)}/tools?limit=100`),
  agentConnections: (agentId: string) => call<Page<AgentConnection>>('GET', `/prompts/${id(agentId)}/connections`),
  attach: (agentId: string, gatewayId: string, toolIds: string[]) =>
    call<AgentConnection>('POST', `/prompts/${id(agentId)}/connections/${id(gatewayId)}/attach-tools`, {
      tool_ids: toolIds,
    }),
  detach: (agentId: string, gatewayId: string) =>
    call<unknown>('DELETE', `/prompts/${id(agentId)}/connections/${id(gatewayId)}/detach`),

  descriptors: () => call<Page<Descriptor>>('GET', '/events/descriptors'),
  eventConnections: () => call<Page<EventConnection>>('GET', '/events/shared-connections?limit=100'),
  addEventConnection: (body: Record<string, unknown>) =>
    call<EventConnection>('POST', '/events/shared-connections', body),
  updateEventConnection: (connectionId: string, body: Record<string, unknown>) =>
    call<EventConnection>('PATCH', `/events/shared-connections/${id(connectionId)}`, body),
  deleteEventConnection: (connectionId: string) =>
    call<unknown>('DELETE', `/events/shared-connections/${id(connectionId)}`),
  deliveries: (connectionId: string) =>
    call<Page<Delivery>>('GET', `/events/shared-connections/${id(connectionId)}/deliveries?limit=50`),
};

export interface AgentConnection {
  prompt_id: string;
  project_id: string | null;
  gateway_id: string;
  gateway_name?: string;
  tools: { id: string; name: string }[];
}

// --- models, deployments, clusters

export interface Model {
  id: string;
  name: string;
  /** `builtin` for the models that come with the server, which cannot be deleted. */
  source: string;
  uri: string | null;
  engine: string;
  format: string;
  size_bytes: number;
  status: string;
  error: unknown;
  /** The process of its worker, while one runs. */
  worker_pid?: number | null;
  download?: { bytes_done: number; bytes_total: number; files_done: number; files_total: number };
}

export interface ModelLoad {
  status: 'not_loaded' | 'loading' | 'loaded' | 'failed';
  worker_pid: number | null;
  error: { code: string; message: string } | null;
}

export interface ModelDownload {
  status: string;
  error: unknown;
  bytes_done?: number;
  bytes_total?: number;
  files_done?: number;
  files_total?: number;
}

export interface AutoScaling {
  min_replicas: number;
  max_replicas: number;
  target_in_flight: number;
}

export interface RateLimit {
  algorithm: 'token_bucket' | 'fixed_window';
  rate_limit: number;
  time_window: 'second' | 'minute' | 'hour';
}

export interface Replica {
  index: number;
  pid: number;
  status: 'starting' | 'ready' | 'failed' | 'stopping';
  in_flight: number;
  error: string | null;
}

export interface Deployment {
  id: string;
  project_id: string;
  name: string;
  model_id: string;
  cluster_id: string;
  replicas: number;
  ready_replicas: number;
  auto_scaling: AutoScaling | null;
  rate_limit: RateLimit | null;
  status: 'pending' | 'deploying' | 'running' | 'scaling' | 'failed' | 'deleting';
  progress: number;
  endpoint_url: string | null;
  error: string | null;
  replicas_detail?: Replica[];
  created_at: number;
}

export interface Deleted {
  id: string;
  deleted: boolean;
  warnings: { code: string; message: string }[];
}

export interface Cluster {
  id: string;
  name: string;
  type: 'local' | 'kubernetes';
  server: string | null;
  context: string | null;
  namespace: string | null;
  kubeconfig_set: boolean;
}

export interface ClusterHealth {
  status: 'healthy' | 'degraded' | 'unhealthy';
  node_count: number;
  available_resources: { cpu: number; memory_bytes: number; gpus: { name: string; memory_bytes: number }[] };
  reasons: string[];
}

/** One server-sent event: its name and its data, parsed. */
export interface ServerEvent {
  event: string;
  data: unknown;
}

/**
 * Reads a server-sent event stream of the API with the tab's token (EventSource cannot send an Authorization header,
 * so the stream is read with fetch): each event goes to `onEvent` — its data parsed as JSON where it is JSON — until
 * the server's `end` event (answers true, `end` not passed on) or the stream closes (false). A refusal is an ApiError.
 */
async function readEvents(
  path: string,
  extraHeaders: Record<string, string>,
  signal: AbortSignal,
  onEvent: (e: ServerEvent) => void,
): Promise<boolean> {
  const response = await fetch(path, { headers: { ...headersFor('text/event-stream'), ...extraHeaders }, signal });
  if (!response.ok || !response.body) {
    const json = await response.json().catch(() => null);
    const problem = {
      code: json?.error?.code ?? 'http_' + response.status,
      param: null,
      message: json?.error?.message ?? `The server answered ${response.status}.`,
    };
    throw new ApiError(response.status, problem, []);
  }
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return false;
    buffer += value.replace(/\r\n?/g, '\n');
    let cut;
    while ((cut = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      let event = 'message';
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
      }
      if (event === 'end') {
        await reader.cancel();
        return true;
      }
      if (data.length === 0) continue; // a comment that keeps the connection
      const text = data.join('\n');
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // not JSON: kept as text
      }
      onEvent({ event, data: parsed });
    }
  }
}

/** Follows an event stream until it ends: `onEvent` gets each event, `onEnd` the end (or the failure); answers the
 * function that stops following. */
export function follow(path: string, onEvent: (e: ServerEvent) => void, onEnd: (error: ApiError | null) => void): () => void {
  const abort = new AbortController();
  readEvents(path, {}, abort.signal, onEvent)
    .then(() => onEnd(null))
    .catch((error) => {
      if (abort.signal.aborted && !(error instanceof ApiError)) onEnd(null);
      else onEnd(error instanceof ApiError ? error : new ApiError(0, { code: 'stream_failed', param: null, message: String(error) }, []));
    });
  return () => abort.abort();
}

export const modelsApi = {
  list: () => call<Page<Model>>('GET', '/models'),
  get: (modelId: string) => call<Model>('GET', `/models/${id(modelId)}`),
  add: (body: Record<string, unknown>) => call<Model>('POST', '/models', body),
  download: (modelId: string) => call<Model>('POST', `/models/${id(modelId)}/download`),
  cancelDownload: (modelId: string) => call<unknown>('POST', `/models/${id(modelId)}/download/cancel`),
  remove: (modelId: string) => call<Deleted>('DELETE', `/models/${id(modelId)}`),
  load: (modelId: string) => call<Model>('POST', `/models/${id(modelId)}/load`),
  eject: (modelId: string) => call<{ ejected: boolean }>('POST', `/models/${id(modelId)}/eject`),
  logs: (modelId: string, lines: number) => call<{ lines: string[] }>('GET', `/models/${id(modelId)}/logs` + q({ lines })),
  eventsPath: (modelId: string) => `/models/${id(modelId)}/events`,
};

export const deploymentsApi = {
  list: () => call<Page<Deployment>>('GET', '/deployments'),
  get: (deploymentId: string) => call<Deployment>('GET', `/deployments/${id(deploymentId)}`),
  create: (body: Record<string, unknown>) => call<Deployment>('POST', '/deployments', body),
  change: (deploymentId: string, body: Record<string, unknown>) => call<Deployment>('PATCH', `/deployments/${id(deploymentId)}`, body),
  remove: (deploymentId: string, force: boolean) =>
    call<Deleted>('DELETE', `/deployments/${id(deploymentId)}` + q({ force: force || undefined })),
  eventsPath: (deploymentId: string) => `/deployments/${id(deploymentId)}/events`,
};

export const clustersApi = {
  list: () => call<Page<Cluster>>('GET', '/clusters'),
  add: (body: Record<string, unknown>) => call<Cluster>('POST', '/clusters', body),
  remove: (clusterId: string) => call<unknown>('DELETE', `/clusters/${id(clusterId)}`),
  health: (clusterId: string) => call<ClusterHealth>('GET', `/clusters/${id(clusterId)}/health`),
};

// --- pipelines

/** A parameter of a pipeline action, as the catalog describes it (checks under `validation`). */
export interface ActionParam {
  name: string;
  type: string;
  required: boolean;
  default?: unknown;
  description: string;
  options?: string[];
  validation?: { min?: number; max?: number; integer?: boolean; min_length?: number; max_length?: number; pattern?: string; max_items?: number };
  visible_when?: { param: string; equals?: string; not_equals?: string };
}

export interface PipelineAction {
  type: string;
  name: string;
  category: string;
  description: string;
  params: ActionParam[];
  outputs: string[];
}

export interface ActionCatalog {
  categories: { id: string; name: string; actions: string[] }[];
  data: PipelineAction[];
}

export interface PipelineParameter {
  name: string;
  type: string;
  required?: boolean;
  default?: unknown;
  description?: string;
}

export interface PipelineStep {
  id: string;
  name?: string;
  action: string;
  params?: Record<string, unknown>;
  depends_on?: string[];
  condition?: string;
  retry?: { max_attempts?: number; backoff_seconds?: number; backoff_multiplier?: number; max_backoff_seconds?: number };
  timeout_seconds?: number;
  on_failure?: 'fail' | 'continue';
}

export interface PipelineDefinition {
  name: string;
  description?: string;
  parameters?: PipelineParameter[];
  steps: PipelineStep[];
  outputs?: Record<string, string>;
  timeout_seconds?: number;
}

export interface Pipeline {
  id: string;
  name: string;
  description: string;
  version: number;
  step_count: number;
  created_at: number;
  updated_at: number;
  definition: PipelineDefinition;
}

export type RunStatus = 'queued' | 'running' | 'paused' | 'completed' | 'failed' | 'cancelled';

export interface RunError {
  code: string;
  message: string;
  step_id?: string | null;
}

export interface RunStep {
  id: string;
  name: string;
  action: string;
  status: 'pending' | 'running' | 'waiting' | 'retrying' | 'completed' | 'failed' | 'skipped' | 'cancelled';
  attempts: number;
  outputs: Record<string, unknown> | null;
  error: RunError | null;
  started_at: number | null;
  finished_at: number | null;
  duration_ms: number | null;
  next_attempt_at: number | null;
}

export interface Run {
  id: string;
  pipeline_id: string;
  pipeline_version: number;
  /** The run this one replays, when it is a replay. */
  replay_of?: string | null;
  status: RunStatus;
  params: Record<string, unknown>;
  trigger: { type: string; schedule_id?: string };
  outputs: Record<string, unknown> | null;
  error: RunError | null;
  created_at: number;
  started_at: number | null;
  finished_at: number | null;
  progress?: { finished_steps: number; total_steps: number };
  steps?: RunStep[];
}

export interface RunEvent {
  id: number;
  kind: 'run' | 'step' | 'log';
  step_id: string | null;
  status: string | null;
  level: string | null;
  message: string;
  created_at: number;
}

export interface Schedule {
  id: string;
  pipeline_id: string;
  name: string;
  cron: string;
  timezone: string;
  params: Record<string, unknown>;
  status: 'active' | 'paused';
  next_run_at: number | null;
  last_run_at: number | null;
  last_run_id: string | null;
  last_error: string | null;
  run_count: number;
  next_runs: { at: number; local: string }[];
}

/**
 * Follows a run's events as the server sends them (`text/event-stream`), from after `after`, until the run ends
 * (resolves true) or the stream breaks or is aborted (false); a refusal is an ApiError. EventSource cannot send the
 * Authorization header the API needs, so the stream is read with fetch.
 */
async function followRun(runId: string, after: number, onEvent: (event: RunEvent) => void, signal: AbortSignal): Promise<boolean> {
  const resume: Record<string, string> = after > 0 ? { 'Last-Event-ID': String(after) } : {};
  return readEvents(`/runs/${id(runId)}/events`, resume, signal, ({ data }) => onEvent(data as RunEvent));
}

/** Something a step's `*_ref` param may name: a model, a cluster, a credential, a deployment. */
export interface Named {
  id: string;
  name: string;
}

export const pipelinesApi = {
  actions: () => call<ActionCatalog>('GET', '/pipelines/actions'),
  models: () => call<Page<Named>>('GET', '/models?limit=100'),
  clusters: () => call<Page<Named>>('GET', '/clusters?limit=100'),
  credentials: () => call<Page<Named>>('GET', '/credentials?limit=100'),
  /** The current project's: a pipeline's deployment steps name one by its id (or its name). */
  deployments: () => call<Page<Named>>('GET', '/deployments?limit=100'),
  list: () => call<Page<Pipeline>>('GET', '/pipelines?limit=100'),
  get: (pipelineId: string) => call<Pipeline>('GET', `/pipelines/${id(pipelineId)}`),
  create: (definition: PipelineDefinition) => call<Pipeline>('POST', '/pipelines', definition),
  replace: (pipelineId: string, definition: PipelineDefinition) => call<Pipeline>('PUT', `/pipelines/${id(pipelineId)}`, definition),
  remove: (pipelineId: string) => call<unknown>('DELETE', `/pipelines/${id(pipelineId)}`),

  startRun: (pipelineId: string, params: Record<string, unknown>) => call<Run>('POST', `/pipelines/${id(pipelineId)}/runs`, { params }),
  runs: (pipelineId: string, status: string) => call<Page<Run>>('GET', `/pipelines/${id(pipelineId)}/runs` + q({ status, limit: 50 })),
  run: (runId: string) => call<Run>('GET', `/runs/${id(runId)}`),
  cancelRun: (runId: string) => call<Run>('POST', `/runs/${id(runId)}/cancel`),
  retryRun: (runId: string) => call<Run>('POST', `/runs/${id(runId)}/retry`),
  pauseRun: (runId: string) => call<Run>('POST', `/runs/${id(runId)}/pause`),
  resumeRun: (runId: string) => call<Run>('POST', `/runs/${id(runId)}/resume`),
  /** Starts a new run replaying an ended one from a step; the steps not after it keep their outputs. */
  replayRun: (runId: string, fromStep: string) => call<Run>('POST', `/runs/${id(runId)}/replay`, { from_step: fromStep }),
  answerApproval: (runId: string, stepId: string, decision: 'approved' | 'rejected', comment: string) =>
    call<unknown>('POST', `/runs/${id(runId)}/steps/${id(stepId)}/approval`, comment ? { decision, comment } : { decision }),
  followRun,

  schedules: (pipelineId: string) => call<Page<Schedule>>('GET', `/pipelines/${id(pipelineId)}/schedules?limit=100`),
  createSchedule: (pipelineId: string, body: Record<string, unknown>) => call<Schedule>('POST', `/pipelines/${id(pipelineId)}/schedules`, body),
  pauseSchedule: (scheduleId: string) => call<Schedule>('POST', `/schedules/${id(scheduleId)}/pause`),
  resumeSchedule: (scheduleId: string) => call<Schedule>('POST', `/schedules/${id(scheduleId)}/resume`),
  runSchedule: (scheduleId: string) => call<{ id: string }>('POST', `/schedules/${id(scheduleId)}/run`),
  deleteSchedule: (scheduleId: string) => call<unknown>('DELETE', `/schedules/${id(scheduleId)}`),
};

// --- studio: decisions, history, templates with versions and aliases, examples, feedback, evals (/v1/studio)

export type QuestionType = 'choice' | 'noul' | 'multi' | 'score' | 'rank' | 'number';

/** A question as the API takes it: criteria are options (name → description), levels, values or yes/no sides. */
export interface Question {
  type: QuestionType;
  instructions?: string;
  criteria?: Record<string, string | null> | string[] | number[] | string;
  threshold?: number;
  unit?: string;
}

export interface Answer {
  type: QuestionType;
  probabilities: Record<string, number>;
  decision: string | number | string[] | null;
  top_probability: number;
  certainty: number;
  act: boolean;
  legend?: Record<string, string>;
  unit?: string;
  threshold?: number;
}

export interface Decision {
  id: string;
  object: 'decision';
  status: string;
  created_at: number;
  completed_at: number | null;
  template: { id: string; version: number; ref?: string } | null;
  model: string | null;
  answers: Record<string, Answer>;
  act: boolean;
  needs_review: string[];
  settings: { act_threshold: number; temperature: number };
  timing: Record<string, number> | null;
  usage: { input_tokens: number; output_tokens: number } | null;
  error: { code: string; message: string } | null;
  store: string;
  warnings: { code: string; message: string }[];
  input?: { state: unknown; variables: Record<string, unknown> | null; rendered_state?: string; questions?: Record<string, Question> };
  feedback?: Record<string, { expected: unknown; correct: boolean | null; feedback_id: string }>;
}

export interface DecisionSummary {
  id: string;
  status: string;
  created_at: number;
  template: { id: string; version: number } | null;
  model: string | null;
  act: boolean;
  needs_review: string[];
  labelled: boolean;
  answers: Record<string, { type: QuestionType; decision: unknown; certainty: number; act: boolean }>;
  error: { code: string; message: string } | null;
}

export interface Cursored<T> extends Page<T> {
  first_id: string | null;
  last_id: string | null;
}

export interface Feedback {
  id: string;
  decision_id: string;
  question: string;
  expected: unknown;
  predicted: unknown;
  correct: boolean | null;
  rating: number | null;
  created_at: number;
}

export interface Definition {
  name?: string;
  description?: string;
  note?: string;
  model?: string | null;
  state?: string | null;
  variables?: Record<string, Record<string, unknown>>;
  questions?: Record<string, Question>;
  settings?: Record<string, unknown>;
}

export interface Template extends Definition {
  id: string;
  name: string;
  description: string;
  origin: 'builtin' | 'user';
  archived: boolean;
  aliases: Record<string, number>;
  version: number;
  note: string;
  metadata: Record<string, string>;
  summary?: { questions: string[]; variables: string[]; model: string | null };
  updated_at: number;
}

export interface TemplateVersion extends Definition {
  template: string;
  version: number;
  note: string;
  aliases: string[];
  changes: { class: string; summary: string[] };
  created_at: number;
}

export interface TemplateDiff {
  from: number;
  to: number;
  class: string;
  breaking_for_callers: boolean;
  summary: string[];
}

export interface Example {
  id: string;
  state: unknown;
  variables: Record<string, unknown> | null;
  expected: Record<string, unknown>;
  tags: string[];
  split: 'test' | 'calibration';
  note: string | null;
}

export interface StudioModel {
  id: string;
  name: string;
  status?: string;
}

export interface ReliabilityBin {
  from: number;
  to: number;
  n: number;
  confidence: number | null;
  accuracy: number | null;
}

export interface QuestionMetrics {
  type: QuestionType;
  n: number;
  correct: number;
  accuracy: number | null;
  brier?: number | null;
  log_loss?: number | null;
  ece?: number | null;
  confident_mistakes?: number;
  reliability?: ReliabilityBin[];
  confusion?: Record<string, Record<string, number>>;
  temperature?: { current: number; fitted: number | null };
  act_threshold?: { current: number; suggested: number | null; coverage?: number; error?: number };
  f1?: number | null;
  exact_match?: number | null;
  within_one?: number | null;
  mae?: number | null;
  kendall_tau?: number | null;
}

export interface EvalTarget {
  index: number;
  version: number | null;
  model: string;
  items: number;
  failed: number;
  measured_on: string;
  fitted_on: string;
  questions: Record<string, QuestionMetrics>;
}

export interface Eval {
  id: string;
  status: 'queued' | 'in_progress' | 'completed' | 'failed' | 'cancelled';
  progress: { done: number; total: number; failed: number };
  template: { id: string; reference: string } | null;
  targets: { index: number; version: number | null; model: string | null }[];
  data_set: { kind: string; split?: string | null; tags?: string[] };
  questions: string[];
  results: { targets: EvalTarget[] } | null;
  error: { code: string; message: string } | null;
  created_at: number;
}

/**
 * The studio takes its own API key where the server sets STUDIO_API_KEY (admin tokens do not open it); the key,
 * once given, is kept for this tab like the token and sent instead of it on the studio's calls.
 */
export const studioKey = {
  get: (): string | null => sessionStorage.getItem(STUDIO_KEY),
  set(key: string | null) {
    if (key) sessionStorage.setItem(STUDIO_KEY, key);
    else sessionStorage.removeItem(STUDIO_KEY);
  },
};

/** The codes of a studio that wants its key (or refuses this caller without one). */
export const needsStudioKey = (error: unknown) =>
  error instanceof ApiError && ['missing_api_key', 'invalid_api_key', 'remote_access_requires_key'].includes(error.code);

const studioCall = <T>(method: Method, path: string, body?: unknown) => call<T>(method, path, body, studioKey.get() ?? session.token());

const S = '/v1/studio';
const tpl = (templateId: string) => `${S}/templates/${templateId.split('/').map(id).join('/')}`;

export const studio = {
  decide: (body: Record<string, unknown>) => studioCall<Decision>('POST', `${S}/decisions`, body),
  decision: (decisionId: string) => studioCall<Decision>('GET', `${S}/decisions/${id(decisionId)}`),
  decisions: (filters: Record<string, string | number | undefined>) =>
    studioCall<Cursored<DecisionSummary>>('GET', `${S}/decisions` + q(filters)),
  feedback: (decisionId: string) => studioCall<Page<Feedback>>('GET', `${S}/decisions/${id(decisionId)}/feedback`),
  giveFeedback: (decisionId: string, body: { expected: Record<string, unknown>; rating: number | null }) =>
    studioCall<Page<Feedback>>('POST', `${S}/decisions/${id(decisionId)}/feedback`, body),
  models: () => studioCall<Page<StudioModel>>('GET', `${S}/models`),
  settings: () => studioCall<unknown>('GET', `${S}/settings`),

  templates: (filters: Record<string, string | number | undefined>) =>
    studioCall<Cursored<Template>>('GET', `${S}/templates` + q(filters)),
  template: (templateId: string) => studioCall<Template>('GET', tpl(templateId)),
  createTemplate: (body: Record<string, unknown>) => studioCall<Template>('POST', `${S}/templates`, body),
  saveTemplate: (templateId: string, body: Record<string, unknown>) => studioCall<Template>('PUT', tpl(templateId), body),
  schema: (templateId: string) => studioCall<{ properties?: Record<string, Record<string, unknown>>; required?: string[] }>('GET', tpl(templateId) + '/schema'),
  versions: (templateId: string) => studioCall<Page<TemplateVersion>>('GET', tpl(templateId) + '/versions?limit=100'),
  version: (templateId: string, version: number) => studioCall<TemplateVersion>('GET', `${tpl(templateId)}/versions/${version}`),
  diff: (templateId: string, from: number, to: number) =>
    studioCall<TemplateDiff>('GET', `${tpl(templateId)}/versions/${to}/diff` + q({ against: from })),
  setAlias: (templateId: string, alias: string, version: number) =>
    studioCall<unknown>('PUT', `${tpl(templateId)}/aliases/${id(alias)}`, { version }),
  deleteAlias: (templateId: string, alias: string) => studioCall<unknown>('DELETE', `${tpl(templateId)}/aliases/${id(alias)}`),

  examples: (templateId: string, filters: Record<string, string | undefined>) =>
    studioCall<Page<Example>>('GET', tpl(templateId) + '/examples' + q({ ...filters, limit: 1000 })),
  addExample: (templateId: string, body: Record<string, unknown>) => studioCall<Example>('POST', tpl(templateId) + '/examples', body),
  importExamples: (templateId: string, examples: unknown[]) =>
    studioCall<{ created: number; failed: { index: number; error: Problem }[] }>('POST', tpl(templateId) + '/examples/import', { examples }),
  updateExample: (templateId: string, exampleId: string, body: Record<string, unknown>) =>
    studioCall<Example>('PATCH', `${tpl(templateId)}/examples/${id(exampleId)}`, body),
  deleteExample: (templateId: string, exampleId: string) => studioCall<unknown>('DELETE', `${tpl(templateId)}/examples/${id(exampleId)}`),

  evals: () => studioCall<Page<Eval>>('GET', `${S}/evals?limit=50`),
  eval: (evalId: string, wait?: number) => studioCall<Eval>('GET', `${S}/evals/${id(evalId)}` + q({ wait })),
  startEval: (body: Record<string, unknown>) => studioCall<Eval>('POST', `${S}/evals`, body),
  cancelEval: (evalId: string) => studioCall<Eval>('POST', `${S}/evals/${id(evalId)}/cancel`),
  applyEval: (evalId: string, body: Record<string, unknown>) => studioCall<Template>('POST', `${S}/evals/${id(evalId)}/apply`, body),
};

// --- routers

export interface RouterAction {
  type: string;
  name: string;
  category: string;
  description: string;
  color?: string | null;
  params: ActionParam[];
  outputs: string[];
  terminal?: boolean;
}

export interface RouterActionCatalog {
  categories: { id: string; name: string; actions: string[] }[];
  data: RouterAction[];
}

export interface Step {
  step_id: string;
  action_type: string;
  name?: string;
  params?: Record<string, unknown>;
  conditions?: string[];
  depends_on?: string[];
  next_steps?: string[];
}

export interface DagConfig {
  name?: string;
  description?: string;
  entry_step?: string;
  steps: Step[];
  parameters?: unknown[];
  outputs?: Record<string, unknown>;
}

export type RouterState = 'draft' | 'active' | 'inactive';

export interface Router {
  id: string;
  project_id: string;
  name: string;
  description: string;
  tags: string[];
  icon: string;
  dag_config: DagConfig;
  status: RouterState;
  step_count: number;
  created_at: number;
  modified_at: number;
}

export interface SavedRouter extends Router {
  warnings: Problem[];
}

export interface RouterVersion {
  version: number;
  step_count: number;
  dag_config: DagConfig;
  saved_at: number;
  replaced_at: number;
}

/** A check's answer; a warning's param is left out when it names none. */
export interface GraphValidation {
  valid: boolean;
  errors: Problem[];
  warnings: (Omit<Problem, 'param'> & { param?: string | null })[];
}

export interface Named {
  id: string;
  name: string;
  source?: string;
  uri?: string | null;
}

export const routerApi = {
  actions: () => call<RouterActionCatalog>('GET', '/routers/actions'),
  validateGraph: async (dagConfig: DagConfig, status: RouterState) => {
    const answer = await call<GraphValidation>('POST', '/routers/validate', { dag_config: dagConfig, status });
    return { ...answer, warnings: answer.warnings.map((w): Problem => ({ ...w, param: w.param ?? null })) };
  },
  list: () => call<Page<Router>>('GET', '/routers?limit=100'),
  listIn: (projectId: string) => call<Page<Router>>('GET', `/routers?limit=100&project_id=${encodeURIComponent(projectId)}`),
  get: (routerId: string) => call<Router>('GET', `/routers/${id(routerId)}`),
  create: (body: Record<string, unknown>) => call<SavedRouter>('POST', '/routers', body),
  save: (routerId: string, body: Record<string, unknown>) => call<SavedRouter>('PUT', `/routers/${id(routerId)}`, body),
  setStatus: (routerId: string, status: RouterState) =>
    call<SavedRouter>('PATCH', `/routers/${id(routerId)}`, { status }),
  remove: (routerId: string) => call<unknown>('DELETE', `/routers/${id(routerId)}`),
  versions: (routerId: string, limit = 100) =>
    call<Page<RouterVersion>>('GET', `/routers/${id(routerId)}/versions?limit=${limit}`),
  // what `*_ref` params may name; a token that may not list one kind types the value instead
  models: () => call<Page<Named>>('GET', '/models?limit=100'),
  deployments: () => call<Page<Named>>('GET', '/deployments?limit=100'),
  credentials: () => call<Page<Named>>('GET', '/credentials?limit=100'),
  clusters: () => call<Page<Named>>('GET', '/clusters?limit=100'),
};

// The typed client of the Arbor API: every call the console makes goes through here, with the tab's token as a
// Bearer header and the current project as X-Project-Id. Failures arrive as ApiError, the envelope's fields intact.

const TOKEN_KEY = 'arbor.token';
const PROJECT_KEY = 'arbor.project';

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

async function call<T>(method: Method, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  const token = session.token();
  if (token) headers.Authorization = `Bearer ${token}`;
  const project = session.project();
  if (project) headers['X-Project-Id'] = project;
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

// --- routers
export interface ActionParam {
  name: string;
  type: string;
  required: boolean;
  description?: string;
  default?: unknown;
  options?: string[];
  validation?: { min?: number; max?: number; integer?: boolean; min_length?: number; max_length?: number; pattern?: string; max_items?: number };
  visible_when?: { param: string; equals?: string; not_equals?: string };
}

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

export interface ActionCatalog {
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
  actions: () => call<ActionCatalog>('GET', '/routers/actions'),
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

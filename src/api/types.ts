// Request and result types of the 17 operations, field names exactly as docs/operations.md has them.
// The table OperationTypes ties each operation name to its path parameters, body and result.

/** Datetime fields are ISO 8601 strings. */
type DateTime = string;

/** An item of an envelope's `errors` (the AI run's items carry only `message`). */
export interface ApiMessage {
  readonly code?: number;
  readonly message: string;
}

// 1 — put script content (multipart)
export interface ScriptUpload {
  /** The `metadata` part: main_module or body_part inside, plus pass-through fields. */
  readonly metadata: Record<string, unknown>;
  readonly modules: readonly ScriptModule[];
  /** Sent as CF-WORKER-BODY-PART / CF-WORKER-MAIN-MODULE-PART (the provider's prefix). */
  readonly headers?: { readonly bodyPart?: string; readonly mainModulePart?: string };
}
export interface ScriptModule {
  readonly name: string;
  readonly content: string | Uint8Array;
  readonly contentType: string;
}
interface TailConsumer {
  readonly service?: string;
  readonly environment?: string;
  readonly namespace?: string;
}
interface WorkerScript {
  readonly created_on?: DateTime;
  readonly etag?: string;
  readonly id?: string;
  readonly logpush?: boolean;
  readonly modified_on?: DateTime;
  readonly pipeline_hash?: string;
  readonly placement_mode?: string;
  readonly tail_consumers?: readonly TailConsumer[];
  readonly usage_model?: string;
}

// 2 — update Zero Trust organization
interface AccessOrganizationRequest {
  readonly auth_domain?: string;
  readonly auto_redirect_to_identity?: boolean;
  readonly custom_pages?: { readonly forbidden?: string; readonly identity_denied?: string };
  readonly is_ui_read_only?: boolean;
  readonly login_design?: {
    readonly background_color?: string;
    readonly footer_text?: string;
    readonly header_text?: string;
    readonly logo_path?: string;
    readonly text_color?: string;
  };
  readonly name?: string;
  readonly session_duration?: string;
  readonly ui_read_only_toggle_reason?: string;
  readonly user_seat_expiration_inactive_time?: string;
}
interface AccessOrganization extends AccessOrganizationRequest {
  readonly created_at?: DateTime;
  readonly updated_at?: DateTime;
}

// 3, 8, 16 — API tokens
/**
 * A policy as the provider requires it (docs/operations.md, operations 8 and 3): effect, permission
 * groups and resources; a resource maps to a string or, one level deep, to a map of scopes.
 */
interface TokenPolicy {
  readonly effect: string;
  readonly id?: string;
  readonly permission_groups: readonly { readonly id?: string; readonly name?: string }[];
  readonly resources: Readonly<Record<string, string | Readonly<Record<string, string>>>>;
}
type TokenStatus = 'active' | 'disabled' | 'expired';
interface TokenCondition {
  readonly 'request.ip'?: { readonly in?: readonly string[]; readonly not_in?: readonly string[] };
  readonly [key: string]: unknown;
}
interface CreateTokenRequest {
  readonly name: string;
  readonly policies: readonly TokenPolicy[];
  readonly condition?: TokenCondition;
  readonly expires_on?: DateTime;
  readonly not_before?: DateTime;
}
interface UpdateTokenRequest extends CreateTokenRequest {
  readonly id: string;
  readonly status: TokenStatus;
  readonly issued_on?: DateTime;
  readonly modified_on?: DateTime;
}
/** The create result: the secret comes once, as `value`; other fields are not promised. */
interface CreatedToken {
  readonly value?: string;
  readonly id?: string;
  readonly [key: string]: unknown;
}

// 4 — attach Worker to domain
interface WorkerDomainRequest {
  readonly environment: string;
  readonly hostname: string;
  readonly service: string;
  readonly zone_id: string;
}
interface WorkerDomain extends Partial<WorkerDomainRequest> {
  readonly id?: string;
  readonly zone_name?: string;
}

// 5 — create proxy endpoint
interface CreateProxyEndpointRequest {
  readonly name: string;
  readonly ips: readonly string[];
  readonly subdomain?: string;
}
interface ProxyEndpoint extends Partial<CreateProxyEndpointRequest> {
  readonly id?: string;
  readonly created_at?: DateTime;
  readonly updated_at?: DateTime;
}

// 6, 9 — gateway lists
type GatewayListType = 'SERIAL' | 'URL' | 'DOMAIN' | 'EMAIL' | 'IP';
interface GatewayListItem {
  readonly created_at?: DateTime;
  readonly value: string;
}
interface CreateListRequest {
  readonly name: string;
  readonly type: GatewayListType;
  readonly description?: string;
  readonly items?: readonly GatewayListItem[];
}
interface UpdateListRequest {
  readonly name: string;
  readonly description?: string;
}
interface GatewayList {
  readonly id?: string;
  readonly name?: string;
  readonly type?: GatewayListType;
  readonly description?: string;
  readonly items?: readonly GatewayListItem[];
  readonly count?: number;
  readonly created_at?: DateTime;
  readonly updated_at?: DateTime;
}

// 7 — create location
interface CreateLocationRequest {
  readonly name: string;
  readonly client_default?: boolean;
  readonly ecs_support?: boolean;
  /** On the wire as `{network}` objects, the form the provider takes (a document may write bare CIDRs). */
  readonly networks?: readonly { readonly network: string }[];
}
interface GatewayLocation extends Partial<CreateLocationRequest> {
  readonly id?: string;
  readonly doh_subdomain?: string;
  readonly ip?: string;
  readonly created_at?: DateTime;
  readonly updated_at?: DateTime;
}

// 10 — bulk KV write
interface KvPair {
  readonly key: string;
  readonly value: string;
  readonly base64?: boolean;
  readonly expiration?: number;
  readonly expiration_ttl?: number;
  readonly metadata?: Readonly<Record<string, unknown>>;
}

// 11 — update route
interface RouteRequest {
  readonly pattern: string;
  readonly script?: string;
}
interface WorkerRoute extends Partial<RouteRequest> {
  readonly id?: string;
}

// 12 — logging settings
interface LoggingSettings {
  readonly redact_pii?: boolean;
  readonly settings_by_rule_type?: Readonly<Record<string, unknown>>;
}

// 13 — create Zero Trust account
interface CreateGatewayAccountRequest {
  readonly account_id: string;
}
interface GatewayAccount {
  readonly gateway_tag?: string;
  readonly id?: string;
  readonly provider_name?: string;
}

// 14 — AI run: the body is the model's input; the result a map.
type AiRunResult = Readonly<Record<string, unknown>>;

// 15 — edit user
interface EditUserRequest {
  readonly country?: string;
  readonly first_name?: string;
  readonly last_name?: string;
  readonly telephone?: string;
  readonly zipcode?: string;
}

// 17 — connectivity settings
interface ConnectivitySettings {
  readonly icmp_proxy_enabled?: boolean;
  /** The provider's name; the document calls it offramp_tunnel_enabled, which the provider ignores. */
  readonly offramp_warp_enabled?: boolean;
}

type NoParams = Readonly<Record<string, never>>;

/** Path parameters, body and result of every operation. */
export interface OperationTypes {
  putScriptContent: {
    params: { account_identifier: string; service_name: string; environment_name: string };
    body: ScriptUpload;
    result: WorkerScript;
  };
  updateAccessOrganization: { params: { identifier: string }; body: AccessOrganizationRequest; result: AccessOrganization };
  updateToken: { params: { identifier: string }; body: UpdateTokenRequest; result: Record<string, unknown> };
  attachWorkerDomain: { params: { account_identifier: string }; body: WorkerDomainRequest; result: WorkerDomain };
  createProxyEndpoint: { params: { identifier: string }; body: CreateProxyEndpointRequest; result: ProxyEndpoint };
  createList: { params: { identifier: string }; body: CreateListRequest; result: GatewayList };
  createLocation: { params: { identifier: string }; body: CreateLocationRequest; result: GatewayLocation };
  createToken: { params: NoParams; body: CreateTokenRequest; result: CreatedToken };
  updateList: { params: { identifier: string; uuid: string }; body: UpdateListRequest; result: GatewayList };
  writeKvBulk: {
    params: { account_identifier: string; namespace_identifier: string };
    /** A Uint8Array is sent as-is: already-serialized JSON, so the chunker sends the bytes it measured. */
    body: readonly KvPair[] | Uint8Array;
    result: unknown;
  };
  updateRoute: { params: { zone_id: string; route_id: string }; body: RouteRequest; result: WorkerRoute };
  updateLogging: { params: { identifier: string }; body: LoggingSettings; result: LoggingSettings };
  createGatewayAccount: { params: { identifier: string }; body: CreateGatewayAccountRequest; result: GatewayAccount };
  runAi: { params: { account_identifier: string; model_name: string }; body: Record<string, unknown>; result: AiRunResult };
  editUser: { params: NoParams; body: EditUserRequest; result: Record<string, unknown> };
  rollToken: { params: { identifier: string }; body: Record<string, unknown>; result: string };
  updateConnectivitySettings: { params: { account_identifier: string }; body: ConnectivitySettings; result: ConnectivitySettings };
  patchList: {
    params: { account_id: string; list_id: string };
    body: { append?: readonly { value: string; description?: string }[]; remove?: readonly string[] };
    result: GatewayList;
  };
  updateLocation: { params: { account_id: string; location_id: string }; body: CreateLocationRequest; result: GatewayLocation };
  patchProxyEndpoint: { params: { account_id: string; proxy_endpoint_id: string }; body: Partial<CreateProxyEndpointRequest>; result: ProxyEndpoint };
  createRoute: { params: { zone_id: string }; body: RouteRequest; result: WorkerRoute };
  createAccessOrganization: { params: { account_id: string }; body: AccessOrganizationRequest; result: AccessOrganization };
  detachWorkerDomain: { params: { account_id: string; domain_id: string }; body: undefined; result: unknown };
  deleteRoute: { params: { zone_id: string; route_id: string }; body: undefined; result: unknown };
  /** The key names, at most 10,000. */
  deleteKvBulk: { params: { account_id: string; namespace_id: string }; body: readonly string[]; result: unknown };
  deleteList: { params: { account_id: string; list_id: string }; body: undefined; result: unknown };
  deleteLocation: { params: { account_id: string; location_id: string }; body: undefined; result: unknown };
  deleteProxyEndpoint: { params: { account_id: string; proxy_endpoint_id: string }; body: undefined; result: unknown };
  deleteToken: { params: { token_id: string }; body: undefined; result: unknown };
}

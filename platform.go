// Package platform is a client for the Database Platform API, one service
// per resource group: organizations, their members, teams, audit log and
// billing; databases, branches, schemas, keyspaces and the Vitess control
// plane of a MySQL branch; deploy requests, workflows and data imports;
// cluster sizes, resize and change requests, bouncers, switchovers and
// maintenance; backups, role credentials, passwords and IP restrictions;
// connections, insights and metrics; webhooks, traffic budgets, service
// tokens and OAuth applications. Package oauth holds the OAuth 2.0
// authorization-code and device flows.
//
// A Client is built once and shared; it is safe for concurrent use:
//
//	client, err := platform.NewClient(
//		platform.WithServiceToken(os.Getenv("PLATFORM_TOKEN_ID"), os.Getenv("PLATFORM_TOKEN")),
//	)
//	if err != nil {
//		return err
//	}
//	db, err := client.Databases.Get(ctx, &platform.GetDatabaseParams{
//		Organization: "acme",
//		Database:     "app-db",
//	})
//	if errors.Is(err, platform.ErrNotFound) {
//		// no such database, or the token may not see it
//	}
//
// Every service method names the operation it calls in its documentation
// ("API: GET /v1/..."). Paged methods return one [Page] (or a [CursorPage]
// for cursor-paged lists); each has an All twin, a lazy iterator over the
// items from the params' page or cursor on. Lists the API does not page
// return a slice. Errors returned by the API are
// [*Error] values that classify with [errors.Is] against [ErrNotFound],
// [ErrUnprocessable] and the other sentinels.
//
// The methods named Wait or Wait<X> ([DatabasesService.Wait],
// [DeployRequestsService.WaitDeployment], ...) poll a resource until it
// reaches the state they wait for, every second at first and backing off
// to every 15 seconds. They have no timeout of their own: give ctx a
// deadline. Unlike other methods, a waiter that stops short returns the
// resource as it last polled it together with the error, so the caller
// sees where the wait stopped: a [*StateError] when the resource reached a
// state it cannot leave for the one waited for (a failed backup), an
// [*UnreachableError] when nothing scheduled can move it (on a client of
// the fake only), or ctx's error when ctx ends between two polls. A
// request that fails (after its retries) ends the wait with its error and
// a nil result, but for [MaintenanceService.WaitSchedule], which returns
// the schedule it polled when listing its windows fails.
//
// A request that fails is sent again, up to 4 more times
// ([DefaultRetryPolicy]): on a 429 or 503 whatever its method, and on a
// network error, 500, 502 or 504 only for GET, HEAD, PUT, DELETE and
// OPTIONS, so that a POST or PATCH the server may have acted on is never
// repeated. The waits start at 250ms and grow, with jitter, up to 8s; a
// Retry-After header sets the wait instead, and a 429 or 503 that asks for
// more than 60s is returned at once, with [Error.RetryAfter] set.
// [WithRetryPolicy] changes these settings and [WithoutRetries] sends each
// request once.
//
// Tests of code that uses this package run against the in-memory fake in
// package fake, which implements the whole API.
package platform

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/go-querystring/query"
)

// DefaultBaseURL is the address of the live API. Paths of operations are
// resolved against it ("v1/organizations" becomes DefaultBaseURL+"v1/organizations").
const DefaultBaseURL = "https://api.dbplatform.dev/"

// Client calls the Database Platform API. Create one with [NewClient]; its
// services group the operations by resource.
type Client struct {
	baseURL *url.URL
	base    string // baseURL as a string, ending in "/": operation paths are appended to it
	send    sender
	sleep   SleepFunc
	logged  bool // a logger counts attempts through the request's context

	// The values of the headers every request carries, shared by the
	// requests the client builds: a header's value slice is only ever
	// replaced, never written to, so sharing it is safe.
	accept, json, userAgent []string
	// auth is the service token's Authorization value, set directly on
	// the requests the client builds for its own methods (always to its own
	// host), so that the credential transport need not clone them; nil
	// for other credentials.
	auth []string
	// secret is the service token's secret, and bearer the transport that
	// notes the access tokens a token source gave: what redact keeps out
	// of error texts.
	secret string
	bearer *tokenTransport

	// Organizations manages organizations, their members and their regions.
	Organizations *OrganizationsService
	// Users reads the user behind the credentials.
	Users *UsersService
	// Regions lists the public regions.
	Regions *RegionsService
	// Databases manages databases.
	Databases *DatabasesService
	// Branches manages branches, their schemas and safe migrations.
	Branches *BranchesService
	// Keyspaces manages the keyspaces of branches and their read-only
	// regions.
	Keyspaces *KeyspacesService
	// ClusterSizes lists the cluster sizes that cluster_size fields take.
	ClusterSizes *ClusterSizesService
	// BranchChanges reads the configuration of branches' clusters
	// (parameters, extensions and infrastructure) and changes it: it
	// requests, reads, waits for and cancels resize and change requests,
	// and changes a branch's cluster size (UpdateClusterConfig).
	BranchChanges *BranchChangesService
	// Bouncers manages the connection poolers of PostgreSQL branches and
	// their resizes.
	Bouncers *BouncersService
	// Switchovers moves the primaries of PostgreSQL branches.
	Switchovers *SwitchoversService
	// Vitess reads and drives the Vitess control plane of MySQL branches:
	// the topology (tablets, keyspaces, shards, tablet controls), planned
	// reparents, VReplication workflows, MoveTables, VDiffs, Materialize,
	// lookup vindexes, routing rules and the tablet throttler.
	Vitess *VitessService
	// Workflows moves tables between the keyspaces of a branch.
	Workflows *WorkflowsService
	// Maintenance runs maintenance on branches and reads the maintenance
	// schedules of databases.
	Maintenance *MaintenanceService
	// Backups manages the backups of branches.
	Backups *BackupsService
	// BackupPolicies manages the backup schedules of databases.
	BackupPolicies *BackupPoliciesService
	// Roles manages role credentials of branches.
	Roles *RolesService
	// DeployRequests manages deploy requests, deployments, reviews and the
	// deploy queue.
	DeployRequests *DeployRequestsService
	// Teams manages an organization's teams and their members.
	Teams *TeamsService
	// TrafficBudgets manages the traffic budgets of branches and their rules.
	TrafficBudgets *TrafficBudgetsService
	// QueryInsights reads what branches' queries did: summaries, errors,
	// tags and anomalies.
	QueryInsights *QueryInsightsService
	// ServiceTokens manages service tokens and their permissions.
	ServiceTokens *ServiceTokensService
	// Webhooks manages the webhooks of databases.
	Webhooks *WebhooksService
	// OAuthApplications reads OAuth applications and manages their tokens.
	OAuthApplications *OAuthApplicationsService
	// Passwords manages the passwords of MySQL branches.
	Passwords *PasswordsService
	// IPRestrictions manages the IP allowlists of PostgreSQL databases.
	IPRestrictions *IPRestrictionsService
	// Metrics reads the metrics of branches.
	Metrics *MetricsService
	// QueryPatternReports generates and downloads reports of branches'
	// query patterns.
	QueryPatternReports *QueryPatternReportsService
	// SchemaRecommendations reads and dismisses the schema recommendations
	// of databases.
	SchemaRecommendations *SchemaRecommendationsService
	// Throttlers sets the throttler ratios of databases and deploy
	// requests.
	Throttlers *ThrottlersService
	// AuthAttemptExports exports the authentication attempts on an
	// organization's databases.
	AuthAttemptExports *AuthAttemptExportsService
	// AuditLogs reads organizations' audit logs.
	AuditLogs *AuditLogsService
	// Billing reads invoices and manages the payment method.
	Billing *BillingService
	// DataImports imports databases from external MySQL servers.
	DataImports *DataImportsService
	// Connections shows and kills the live connections of branches.
	Connections *ConnectionsService
}

// service is what every resource service holds: the client that sends its
// requests. Each service type is defined as this struct, so one value can be
// converted to any of them.
type service struct {
	client *Client
}

// SleepFunc waits for d or until ctx ends, returning ctx.Err() in the second
// case. Waiters and retry backoff wait through it; see [WithSleep]. A
// waiter's wait between two polls may end early, at any moment the polled
// resource may have changed (retry backoff may not).
type SleepFunc func(ctx context.Context, d time.Duration) error

// realSleep waits on the wall clock.
func realSleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// NewClient returns a client configured by opts. Options may come in any
// order; each validates its input and NewClient reports the first problem.
// NewClient does no I/O and reads no environment variables.
func NewClient(opts ...Option) (*Client, error) {
	cfg := config{baseURL: DefaultBaseURL, retry: DefaultRetryPolicy()}
	for _, opt := range opts {
		if opt == nil {
			continue
		}
		if err := opt(&cfg); err != nil {
			return nil, err
		}
	}
	if err := cfg.check(); err != nil {
		return nil, err
	}
	base, err := url.Parse(cfg.baseURL)
	if err != nil {
		return nil, fmt.Errorf("platform: WithBaseURL: %w", err)
	}
	if !strings.HasSuffix(base.Path, "/") {
		base.Path += "/"
	}
	// Operation paths start with "v1/": a base URL that already ends in
	// the version would send them to /v1/v1/...
	if trimmed, ok := strings.CutSuffix(base.Path, "/v1/"); ok {
		base.Path = trimmed + "/"
		base.RawPath = ""
	}
	sleep := cfg.sleep
	if sleep == nil {
		sleep = realSleep
	}
	var bearer *tokenTransport
	if cfg.tokenSrc != nil {
		bearer = &tokenTransport{src: cfg.tokenSrc}
	}
	c := &Client{
		baseURL:   base,
		base:      base.String(),
		send:      cfg.buildSender(base, cfg.sleep, bearer),
		secret:    cfg.token,
		bearer:    bearer,
		sleep:     sleep,
		logged:    cfg.logger != nil,
		accept:    []string{"application/json"},
		json:      []string{"application/json"},
		userAgent: []string{userAgent(cfg.userAgent)},
	}
	if cfg.tokenID != "" {
		c.auth = []string{cfg.tokenID + ":" + cfg.token}
	}
	common := &service{client: c}
	c.Organizations = (*OrganizationsService)(common)
	c.Users = (*UsersService)(common)
	c.Regions = (*RegionsService)(common)
	c.Databases = (*DatabasesService)(common)
	c.Branches = (*BranchesService)(common)
	c.Keyspaces = (*KeyspacesService)(common)
	c.ClusterSizes = (*ClusterSizesService)(common)
	c.BranchChanges = (*BranchChangesService)(common)
	c.Bouncers = (*BouncersService)(common)
	c.Switchovers = (*SwitchoversService)(common)
	c.Vitess = (*VitessService)(common)
	c.Workflows = (*WorkflowsService)(common)
	c.Maintenance = (*MaintenanceService)(common)
	c.Backups = (*BackupsService)(common)
	c.BackupPolicies = (*BackupPoliciesService)(common)
	c.Roles = (*RolesService)(common)
	c.DeployRequests = (*DeployRequestsService)(common)
	c.Teams = (*TeamsService)(common)
	c.TrafficBudgets = (*TrafficBudgetsService)(common)
	c.QueryInsights = (*QueryInsightsService)(common)
	c.ServiceTokens = (*ServiceTokensService)(common)
	c.Webhooks = (*WebhooksService)(common)
	c.OAuthApplications = (*OAuthApplicationsService)(common)
	c.Passwords = (*PasswordsService)(common)
	c.IPRestrictions = (*IPRestrictionsService)(common)
	c.Metrics = (*MetricsService)(common)
	c.QueryPatternReports = (*QueryPatternReportsService)(common)
	c.SchemaRecommendations = (*SchemaRecommendationsService)(common)
	c.Throttlers = (*ThrottlersService)(common)
	c.AuditLogs = (*AuditLogsService)(common)
	c.AuthAttemptExports = (*AuthAttemptExportsService)(common)
	c.Billing = (*BillingService)(common)
	c.DataImports = (*DataImportsService)(common)
	c.Connections = (*ConnectionsService)(common)
	return c, nil
}

// BaseURL returns the address the client resolves operation paths against.
func (c *Client) BaseURL() *url.URL {
	u := *c.baseURL
	return &u
}

// NewRequest builds a request for an operation the SDK does not model. path
// is relative to the base URL ("v1/organizations/acme/invoices"); body, when
// not nil, is encoded as JSON.
func (c *Client) NewRequest(ctx context.Context, method, path string, body any) (*http.Request, error) {
	if strings.HasPrefix(path, "/") {
		return nil, &ArgError{Arg: "path", Reason: "must be relative to the base URL (no leading slash)"}
	}
	u, err := c.baseURL.Parse(path)
	if err != nil {
		return nil, &ArgError{Arg: "path", Reason: err.Error()}
	}
	req, err := c.newRequest(ctx, method, u.String(), body)
	if err != nil {
		return nil, err
	}
	// The caller owns this request: it gets header values of its own
	// rather than the client's shared ones.
	for k, v := range req.Header {
		req.Header[k] = slices.Clone(v)
	}
	return req, nil
}

// newRequest builds a request to rawURL with the headers every request
// carries, and body, when not nil, encoded as JSON.
func (c *Client) newRequest(ctx context.Context, method, rawURL string, body any) (*http.Request, error) {
	var r io.Reader
	if body != nil {
		buf, err := json.Marshal(body)
		if err != nil {
			return nil, fmt.Errorf("platform: encoding request body: %w", err)
		}
		r = bytes.NewReader(buf)
	}
	req, err := http.NewRequestWithContext(ctx, method, rawURL, r)
	if err != nil {
		return nil, err
	}
	req.Header["Accept"] = c.accept
	req.Header["User-Agent"] = c.userAgent
	if body != nil {
		req.Header["Content-Type"] = c.json
	}
	return req, nil
}

// Do sends req and decodes a successful JSON response into v (when v is not
// nil). A response with a status of 300 or more (an error, or a redirect the
// client would not follow) becomes an [*Error]; the response is returned in
// both cases with its body closed. req itself is not modified (a copy is
// sent), although its body is read. A *[]byte v receives the body as it
// is; a 204 leaves v untouched, and any other empty body is an error when
// v is not a *[]byte.
func (c *Client) Do(req *http.Request, v any) (*http.Response, error) {
	ctx := req.Context()
	if c.logged {
		ctx = withAttempts(ctx)
	}
	resp, err := c.do(req.WithContext(ctx), v, false)
	return resp, c.redact(err)
}

// do is Do for a request the client owns: it may be changed on the way
// (retries set its body), and is not copied first. When v is not nil and
// wantBody is set (the client's own methods, which decode the resource
// their operation answers), a 204 is an error as an empty body is.
func (c *Client) do(req *http.Request, v any, wantBody bool) (*http.Response, error) {
	resp, err := c.send(req)
	if err != nil {
		return nil, c.transportError(req, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		return resp, newError(req, resp)
	}
	if nc, ok := v.(mayAnswerNoContent); ok {
		v, wantBody = nc.v, false
	}
	if v == nil || (resp.StatusCode == http.StatusNoContent && !wantBody) {
		_, _ = io.Copy(io.Discard, resp.Body)
		return resp, nil
	}
	if resp.StatusCode == http.StatusNoContent {
		return resp, emptyBodyError(req, resp)
	}
	if raw, ok := v.(*[]byte); ok { // a file, kept as it is (see fetchSigned)
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			return resp, fmt.Errorf("platform: %s %s: reading response: %w", req.Method, req.URL.Path, err)
		}
		*raw = b
		return resp, nil
	}
	if err := decodeJSON(resp, v); errors.Is(err, errEmptyBody) {
		return resp, emptyBodyError(req, resp)
	} else if err != nil {
		return resp, fmt.Errorf("platform: %s %s: decoding response: %w", req.Method, req.URL.Path, err)
	}
	return resp, nil
}

// mayAnswerNoContent wraps the v of a call whose operation answers either
// a resource or, when it has nothing to say, 204 with no body (a resize
// request that changes nothing): a 204 leaves v untouched instead of being
// an error.
type mayAnswerNoContent struct{ v any }

// errEmptyBody is decodeJSON's error for a body with nothing to decode.
var errEmptyBody = errors.New("empty body")

// emptyBodyError reports a successful answer without the JSON body the
// request's operation answers with, naming the request and the status.
func emptyBodyError(req *http.Request, resp *http.Response) error {
	return fmt.Errorf("platform: %s %s: status %d with no body, want a JSON answer", req.Method, req.URL.Path, resp.StatusCode)
}

// bufPool holds the buffers response bodies are read into for decoding.
var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxPooledBuffer is the largest buffer returned to bufPool, so that one
// large response does not stay in memory.
const maxPooledBuffer = 64 << 10

// decodeJSON reads resp's body to its end (so that the connection can be
// reused) into a pooled buffer and decodes it into v. encoding/json copies
// what it keeps, so nothing decoded refers to the buffer. A body of nothing
// but white space is errEmptyBody.
func decodeJSON(resp *http.Response, v any) error {
	buf := bufPool.Get().(*bytes.Buffer)
	defer func() {
		if buf.Cap() <= maxPooledBuffer {
			buf.Reset()
			bufPool.Put(buf)
		}
	}()
	if n := resp.ContentLength; n > 0 && n <= maxPooledBuffer {
		buf.Grow(int(n) + bytes.MinRead) // ReadFrom wants MinRead free to read EOF
	}
	if _, err := buf.ReadFrom(resp.Body); err != nil {
		return err
	}
	if len(bytes.TrimSpace(buf.Bytes())) == 0 {
		return errEmptyBody
	}
	return json.Unmarshal(buf.Bytes(), v)
}

// nilTarget refuses a nil receiver of an UnmarshalJSON method. From Go
// 1.27, encoding/json calls the method of a nil embedded pointer (a
// caller's struct{ *Timestamp }) where earlier releases refused the field,
// and the method would panic writing through it.
func nilTarget[T any](p *T) error {
	if p == nil {
		return fmt.Errorf("platform: cannot decode JSON into a nil *%T", *new(T))
	}
	return nil
}

// transportError reports a failure to get any response, with the URL's query
// left out so that nothing secret a caller put there reaches an error text.
func (c *Client) transportError(req *http.Request, err error) error {
	if ctxErr := req.Context().Err(); ctxErr != nil && errors.Is(err, ctxErr) {
		return ctxErr
	}
	var uerr *url.Error
	if errors.As(err, &uerr) {
		err = uerr.Err
	}
	return fmt.Errorf("platform: %s %s: %w", req.Method, req.URL.Path, err)
}

// call is the request path every service method takes: build, send, decode.
// path is relative to the base URL and already escaped (see pathf), so the
// URL is the base URL's string with path appended, parsed once; the request
// goes to the client's own host, so it carries the service token's header
// from the start.
func (c *Client) call(ctx context.Context, method, path string, q, body, v any) error {
	rawURL := c.base + path
	if q != nil {
		vals, err := query.Values(q)
		if err != nil {
			return fmt.Errorf("platform: encoding query: %w", err)
		}
		if enc := vals.Encode(); enc != "" {
			rawURL += "?" + enc
		}
	}
	if c.logged {
		ctx = withAttempts(ctx)
	}
	req, err := c.newRequest(ctx, method, rawURL, body)
	if err != nil {
		return err
	}
	if c.auth != nil {
		req.Header["Authorization"] = c.auth
	}
	_, err = c.do(req, v, true)
	return c.redact(err)
}

// get, post, patch, put and del are the verbs of call.
func (c *Client) get(ctx context.Context, path string, q, v any) error {
	return c.call(ctx, http.MethodGet, path, q, nil, v)
}

func (c *Client) post(ctx context.Context, path string, body, v any) error {
	return c.call(ctx, http.MethodPost, path, nil, body, v)
}

func (c *Client) patch(ctx context.Context, path string, body, v any) error {
	return c.call(ctx, http.MethodPatch, path, nil, body, v)
}

func (c *Client) put(ctx context.Context, path string, body, v any) error {
	return c.call(ctx, http.MethodPut, path, nil, body, v)
}

func (c *Client) del(ctx context.Context, path string, q any) error {
	return c.call(ctx, http.MethodDelete, path, q, nil, nil)
}

// resource is the params of an operation on one resource, named by its
// path values: check returns an [*ArgError] for a path value that is
// missing or invalid, before any I/O; path builds the resource's path (with
// pathf), with suffix appended.
type resource interface {
	check() error
	path(suffix string) string
}

// callOn is call for an operation on the one resource p names: it treats a
// nil p as empty params, checks p's path values, and sends method to p's
// path plus suffix with the query q and the body, decoding the T the
// operation answers. It is the one call helper of the services: a service
// does not write its own.
func callOn[T any, P any, PP interface {
	*P
	resource
}](ctx context.Context, c *Client, method string, p *P, suffix string, q, body any) (*T, error) {
	r := PP(orZero(p))
	if err := r.check(); err != nil {
		return nil, err
	}
	v := new(T)
	return orNil(v, c.call(ctx, method, r.path(suffix), q, body, v))
}

// orNil returns v and a nil error, or, when err is not nil, T's zero value
// (a nil pointer or slice) with err: a method that fails returns no result,
// not one its answer decoded in part or not at all.
func orNil[T any](v T, err error) (T, error) {
	if err != nil {
		var zero T
		return zero, err
	}
	return v, nil
}

// doOn is callOn for an operation whose answer the SDK does not read (a
// delete, a webhook's test): it sends method to p's path plus suffix with
// the query q and the body.
func doOn[P any, PP interface {
	*P
	resource
}](ctx context.Context, c *Client, method string, p *P, suffix string, q, body any) error {
	r := PP(orZero(p))
	if err := r.check(); err != nil {
		return err
	}
	return c.call(ctx, method, r.path(suffix), q, body, nil)
}

// Ptr returns a pointer to v, for the optional fields of params.
func Ptr[T any](v T) *T { return &v }

// logAttempt writes the one debug line of an attempt.
func logAttempt(l *slog.Logger, req *http.Request, status, attempt int, d time.Duration, err error) {
	attrs := []slog.Attr{
		slog.String("method", req.Method),
		slog.String("path", req.URL.Path),
		slog.Int("status", status),
		slog.Int("attempt", attempt),
		slog.Duration("duration", d),
	}
	if err != nil {
		attrs = append(attrs, slog.String("error", err.Error()))
	}
	l.LogAttrs(req.Context(), slog.LevelDebug, "platform request", attrs...)
}

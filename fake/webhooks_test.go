package fake_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// webhookDB is the database of the webhook tests.
const webhookDB = "app"

// newWebhookServer starts a fake whose database app is ready, and its admin
// client.
func newWebhookServer(t *testing.T, opts ...fake.Option) (*fake.Server, *platform.Client) {
	t.Helper()
	srv := fake.NewServer(t, opts...)
	mustDB(t, srv, webhookDB)
	srv.Advance(5 * time.Second)
	return srv, srv.Client()
}

// webhookCreate creates a webhook of app with the admin client.
func webhookCreate(t *testing.T, srv *fake.Server, url string, enabled bool, events ...platform.WebhookEvent) *platform.Webhook {
	t.Helper()
	h, err := srv.Client().Webhooks.Create(t.Context(), &platform.CreateWebhookParams{
		Organization: srv.Org(), Database: webhookDB, URL: url, Enabled: platform.Ptr(enabled), Events: events,
	})
	if err != nil {
		t.Fatalf("creating webhook: %v", err)
	}
	return h
}

// webhookRef names a webhook of app.
func webhookRef(srv *fake.Server, id string) *platform.GetWebhookParams {
	return &platform.GetWebhookParams{Organization: srv.Org(), Database: webhookDB, ID: id}
}

// webhookGet reads a webhook of app with the admin client.
func webhookGet(t *testing.T, srv *fake.Server, id string) *platform.Webhook {
	t.Helper()
	h, err := srv.Client().Webhooks.Get(t.Context(), webhookRef(srv, id))
	if err != nil {
		t.Fatalf("getting webhook %s: %v", id, err)
	}
	return h
}

// webhookList reads every webhook of app with the admin client.
func webhookList(t *testing.T, srv *fake.Server) []*platform.Webhook {
	t.Helper()
	var out []*platform.Webhook
	for h, err := range srv.Client().Webhooks.All(t.Context(), &platform.ListWebhooksParams{Organization: srv.Org(), Database: webhookDB}) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, h)
	}
	return out
}

// webhookNoRetries is a client of srv with the admin token that sends each
// request once, so that a 429 reaches the test instead of being waited out.
func webhookNoRetries(t *testing.T, srv *fake.Server) *platform.Client {
	t.Helper()
	c, err := platform.NewClient(append(srv.ClientOptions(srv.AdminToken()), platform.WithoutRetries())...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestWebhookCRUD(t *testing.T) {
	t.Parallel()
	srv, c := newWebhookServer(t)
	ctx := t.Context()
	created, err := c.Webhooks.Create(ctx, &platform.CreateWebhookParams{
		Organization: srv.Org(), Database: webhookDB, URL: "https://hooks.example.com/a",
		Events: []platform.WebhookEvent{platform.EventBranchReady, platform.EventDeployRequestOpened, platform.EventBranchReady},
	})
	if err != nil {
		t.Fatal(err)
	}
	now := platform.NewTimestamp(srv.Now())
	if created.ID == "" || len(created.Secret) < 32 {
		t.Errorf("id %q, secret %q: want an ID and a secret of 32 characters or more", created.ID, created.Secret)
	}
	want := &platform.Webhook{
		ID: created.ID, Type: "Webhook", URL: "https://hooks.example.com/a", Secret: created.Secret,
		Enabled: false, LastSentResult: "", LastSentSuccess: false, LastSentAt: nil,
		CreatedAt: now, UpdatedAt: now,
		Events: []platform.WebhookEvent{platform.EventBranchReady, platform.EventDeployRequestOpened},
	}
	if diff := cmp.Diff(want, created); diff != "" {
		t.Errorf("created (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, webhookGet(t, srv, created.ID)); diff != "" {
		t.Errorf("get (-want +got):\n%s", diff)
	}

	srv.Advance(time.Minute)
	second := webhookCreate(t, srv, "http://127.0.0.1:9/b", true)
	if !second.Enabled || second.Events == nil || len(second.Events) != 0 {
		t.Errorf("second: enabled %v, events %#v; want enabled with no events", second.Enabled, second.Events)
	}
	if second.Secret == created.Secret {
		t.Error("two webhooks share a secret")
	}
	if diff := cmp.Diff([]*platform.Webhook{want, second}, webhookList(t, srv)); diff != "" {
		t.Errorf("list (-want +got):\n%s", diff)
	}

	srv.Advance(time.Minute)
	updated, err := c.Webhooks.Update(ctx, &platform.UpdateWebhookParams{
		Organization: srv.Org(), Database: webhookDB, ID: created.ID,
		URL: platform.Ptr("http://hooks.example.com/new"), Enabled: platform.Ptr(true),
		Events: []platform.WebhookEvent{platform.EventWebhookTest},
	})
	if err != nil {
		t.Fatal(err)
	}
	want.URL, want.Enabled, want.Events = "http://hooks.example.com/new", true, []platform.WebhookEvent{platform.EventWebhookTest}
	want.UpdatedAt = platform.NewTimestamp(srv.Now())
	if diff := cmp.Diff(want, updated); diff != "" {
		t.Errorf("updated (-want +got):\n%s", diff)
	}
	// An empty update changes nothing but updated_at.
	srv.Advance(time.Second)
	same, err := c.Webhooks.Update(ctx, &platform.UpdateWebhookParams{Organization: srv.Org(), Database: webhookDB, ID: created.ID})
	if err != nil {
		t.Fatal(err)
	}
	want.UpdatedAt = platform.NewTimestamp(srv.Now())
	if diff := cmp.Diff(want, same); diff != "" {
		t.Errorf("after an empty update (-want +got):\n%s", diff)
	}

	if err := c.Webhooks.Delete(ctx, webhookRef(srv, created.ID)); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Webhooks.Get(ctx, webhookRef(srv, created.ID)); !errors.Is(err, platform.ErrNotFound) {
		t.Errorf("get after delete: %v, want not found", err)
	}
	if err := c.Webhooks.Delete(ctx, webhookRef(srv, created.ID)); !errors.Is(err, platform.ErrNotFound) {
		t.Errorf("second delete: %v, want not found", err)
	}
	if diff := cmp.Diff([]*platform.Webhook{second}, webhookList(t, srv)); diff != "" {
		t.Errorf("list after delete (-want +got):\n%s", diff)
	}
}

// TestWebhookEventsClearedByEmptyList checks that an explicit empty events
// list in an update unsubscribes from every event, while an absent one
// keeps them.
func TestWebhookEventsClearedByEmptyList(t *testing.T) {
	t.Parallel()
	srv, _ := newWebhookServer(t)
	h := webhookCreate(t, srv, "https://hooks.example.com/", false, platform.EventBranchReady)
	path := "/v1/organizations/" + srv.Org() + "/databases/" + webhookDB + "/webhooks/" + h.ID

	w := send(t, srv, http.MethodPatch, path, admin(srv), `{"enabled": true}`)
	wantStatus(t, w, http.StatusOK)
	if got := decode[platform.Webhook](t, w).Events; !slices.Equal(got, []platform.WebhookEvent{platform.EventBranchReady}) {
		t.Errorf("events after an update without events = %v, want [branch.ready]", got)
	}
	w = send(t, srv, http.MethodPatch, path, admin(srv), `{"events": []}`)
	wantStatus(t, w, http.StatusOK)
	if got, ok := decode[map[string]any](t, w)["events"].([]any); !ok || len(got) != 0 {
		t.Errorf("events after an update with [] in %s, want []", w.body)
	}
}

func TestWebhookRefused(t *testing.T) {
	t.Parallel()
	type refusedCall = func(ctx context.Context, srv *fake.Server, id string) error
	create := func(p platform.CreateWebhookParams) refusedCall {
		return func(ctx context.Context, srv *fake.Server, _ string) error {
			p.Organization, p.Database = srv.Org(), webhookDB
			_, err := srv.Client().Webhooks.Create(ctx, &p)
			return err
		}
	}
	update := func(p platform.UpdateWebhookParams) refusedCall {
		return func(ctx context.Context, srv *fake.Server, id string) error {
			p.Organization, p.Database, p.ID = srv.Org(), webhookDB, id
			_, err := srv.Client().Webhooks.Update(ctx, &p)
			return err
		}
	}
	tests := []struct {
		name   string
		call   refusedCall
		status int
		words  []string
	}{
		{"create without url", create(platform.CreateWebhookParams{}), 422, []string{"url", "required"}},
		{"create with a relative url", create(platform.CreateWebhookParams{URL: "/hooks"}), 422, []string{"url", "/hooks", "absolute"}},
		{"create with an ftp url", create(platform.CreateWebhookParams{URL: "ftp://files.example.com/"}), 422, []string{"url", "ftp://", "http"}},
		{"create with a url without host", create(platform.CreateWebhookParams{URL: "https://"}), 422, []string{"url", "absolute"}},
		{"create with an unparsable url", create(platform.CreateWebhookParams{URL: "http://exa mple.com/%zz"}), 422, []string{"url"}},
		{"create with an unknown event", create(platform.CreateWebhookParams{URL: "https://hooks.example.com/", Events: []platform.WebhookEvent{platform.EventBranchReady, "branch.exploded"}}), 422, []string{"events", "branch.exploded"}},
		{"update to a bad url", update(platform.UpdateWebhookParams{URL: platform.Ptr("mailto:ops@example.com"), Enabled: platform.Ptr(true)}), 422, []string{"url", "mailto:ops@example.com"}},
		{"update with an unknown event", update(platform.UpdateWebhookParams{Enabled: platform.Ptr(true), Events: []platform.WebhookEvent{"deploy_request.exploded"}}), 422, []string{"events", "deploy_request.exploded"}},
		{"update an unknown webhook", func(ctx context.Context, srv *fake.Server, _ string) error {
			return update(platform.UpdateWebhookParams{Enabled: platform.Ptr(true)})(ctx, srv, "nosuchhook00")
		}, 404, nil},
		{"get an unknown webhook", func(ctx context.Context, srv *fake.Server, _ string) error {
			_, err := srv.Client().Webhooks.Get(ctx, webhookRef(srv, "nosuchhook00"))
			return err
		}, 404, nil},
		{"test an unknown webhook", func(ctx context.Context, srv *fake.Server, _ string) error {
			return srv.Client().Webhooks.Test(ctx, webhookRef(srv, "nosuchhook00"))
		}, 404, nil},
		{"webhook of an unknown database", func(ctx context.Context, srv *fake.Server, id string) error {
			_, err := srv.Client().Webhooks.Get(ctx, &platform.GetWebhookParams{Organization: srv.Org(), Database: "nosuchdb", ID: id})
			return err
		}, 404, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, _ := newWebhookServer(t)
			h := webhookCreate(t, srv, "https://hooks.example.com/", false, platform.EventBranchReady)
			before := webhookList(t, srv)
			apiError(t, tc.call(t.Context(), srv, h.ID), tc.status, tc.words...)
			if diff := cmp.Diff(before, webhookList(t, srv)); diff != "" {
				t.Errorf("webhooks changed (-before +after):\n%s", diff)
			}
		})
	}
}

func TestWebhookLimitPerDatabase(t *testing.T) {
	t.Parallel()
	srv, c := newWebhookServer(t)
	mustDB(t, srv, "other")
	for range 5 {
		webhookCreate(t, srv, "https://hooks.example.com/", false)
	}
	before := webhookList(t, srv)
	_, err := c.Webhooks.Create(t.Context(), &platform.CreateWebhookParams{Organization: srv.Org(), Database: webhookDB, URL: "https://hooks.example.com/6"})
	apiError(t, err, http.StatusUnprocessableEntity, webhookDB, "5 webhooks")
	if diff := cmp.Diff(before, webhookList(t, srv)); diff != "" {
		t.Errorf("webhooks changed (-before +after):\n%s", diff)
	}
	// The limit is per database.
	if _, err := c.Webhooks.Create(t.Context(), &platform.CreateWebhookParams{Organization: srv.Org(), Database: "other", URL: "https://hooks.example.com/"}); err != nil {
		t.Errorf("first webhook of another database: %v", err)
	}
	// A deletion makes room.
	if err := c.Webhooks.Delete(t.Context(), webhookRef(srv, before[0].ID)); err != nil {
		t.Fatal(err)
	}
	webhookCreate(t, srv, "https://hooks.example.com/6", false)
}

func TestWebhookListPages(t *testing.T) {
	t.Parallel()
	srv, c := newWebhookServer(t)
	var ids []string
	for range 5 {
		ids = append(ids, webhookCreate(t, srv, "https://hooks.example.com/", false).ID)
		srv.Advance(time.Second)
	}
	var got []string
	for page := 1; page <= 3; page++ {
		p, err := c.Webhooks.List(t.Context(), &platform.ListWebhooksParams{Organization: srv.Org(), Database: webhookDB, ListParams: platform.ListParams{Page: page, PerPage: 2}})
		if err != nil {
			t.Fatal(err)
		}
		if p.HasNext() != (page < 3) || p.TotalCount != nil {
			t.Errorf("page %d: next %v, total %v; want next on pages 1-2 and no totals", page, p.NextPage, p.TotalCount)
		}
		for _, h := range p.Items {
			got = append(got, h.ID)
		}
	}
	if diff := cmp.Diff(ids, got); diff != "" {
		t.Errorf("ids over pages (-want +got):\n%s", diff)
	}
}

// TestWebhookPermissions checks that a token lacking an operation's
// permission gets 404 and changes nothing, and that one holding it on the
// database succeeds.
func TestWebhookPermissions(t *testing.T) {
	t.Parallel()
	everythingBut := func(perm string) []string {
		return slices.DeleteFunc(permissionNames(), func(p string) bool { return p == perm })
	}
	type op struct {
		name string
		perm string
		call func(ctx context.Context, c *platform.Client, ref *platform.GetWebhookParams) error
	}
	ops := []op{
		{"list", "read_database", func(ctx context.Context, c *platform.Client, ref *platform.GetWebhookParams) error {
			_, err := c.Webhooks.List(ctx, &platform.ListWebhooksParams{Organization: ref.Organization, Database: ref.Database})
			return err
		}},
		{"get", "read_database", func(ctx context.Context, c *platform.Client, ref *platform.GetWebhookParams) error {
			_, err := c.Webhooks.Get(ctx, ref)
			return err
		}},
		{"create", "write_database", func(ctx context.Context, c *platform.Client, ref *platform.GetWebhookParams) error {
			_, err := c.Webhooks.Create(ctx, &platform.CreateWebhookParams{Organization: ref.Organization, Database: ref.Database, URL: "https://new.example.com/"})
			return err
		}},
		{"update", "write_database", func(ctx context.Context, c *platform.Client, ref *platform.GetWebhookParams) error {
			_, err := c.Webhooks.Update(ctx, &platform.UpdateWebhookParams{Organization: ref.Organization, Database: ref.Database, ID: ref.ID, Enabled: platform.Ptr(true)})
			return err
		}},
		{"delete", "write_database", func(ctx context.Context, c *platform.Client, ref *platform.GetWebhookParams) error {
			return c.Webhooks.Delete(ctx, ref)
		}},
		{"test", "write_database", func(ctx context.Context, c *platform.Client, ref *platform.GetWebhookParams) error {
			return c.Webhooks.Test(ctx, ref)
		}},
	}
	for _, o := range ops {
		t.Run(o.name, func(t *testing.T) {
			t.Parallel()
			srv, _ := newWebhookServer(t)
			mustDB(t, srv, "other")
			recv := newWebhookReceiver(t, webhookAnswer(http.StatusNoContent))
			h := webhookCreate(t, srv, recv.url(), false)
			ref := webhookRef(srv, h.ID)
			before := webhookList(t, srv)
			for _, lacking := range []fake.TokenSpec{
				{Name: "lacking", Permissions: permissions(everythingBut(o.perm)...)},
				{Name: "elsewhere", DatabasePermissions: map[string][]platform.Permission{"other": permissions(o.perm)}},
			} {
				tok := mustToken(t, srv, lacking)
				apiError(t, o.call(t.Context(), srv.ClientFor(tok), ref), http.StatusNotFound)
			}
			if err := srv.FlushDeliveries(t.Context()); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(before, webhookList(t, srv)); diff != "" {
				t.Errorf("webhooks changed (-before +after):\n%s", diff)
			}
			if n := len(recv.got()); n != 0 {
				t.Errorf("receiver got %d deliveries from refused requests", n)
			}
			tok := mustToken(t, srv, fake.TokenSpec{Name: "here", DatabasePermissions: map[string][]platform.Permission{webhookDB: permissions(o.perm)}})
			if err := o.call(t.Context(), srv.ClientFor(tok), ref); err != nil {
				t.Errorf("with %s on %s: %v", o.perm, webhookDB, err)
			}
		})
	}
}

func TestWebhookTestRateLimit(t *testing.T) {
	t.Parallel()
	srv, _ := newWebhookServer(t)
	c := webhookNoRetries(t, srv)
	ctx := t.Context()
	recv := newWebhookReceiver(t, webhookAnswer(http.StatusOK))
	h := webhookCreate(t, srv, recv.url(), true, platform.EventBranchReady)
	other := webhookCreate(t, srv, recv.url(), true, platform.EventBranchReady)

	if err := c.Webhooks.Test(ctx, webhookRef(srv, h.ID)); err != nil {
		t.Fatalf("first test: %v", err)
	}
	for _, step := range []struct {
		advance    time.Duration
		retryAfter time.Duration // 0: allowed
	}{
		{0, 20 * time.Second},
		{19 * time.Second, time.Second},
		{500 * time.Millisecond, time.Second},
		{500 * time.Millisecond, 0},
		{0, 20 * time.Second},
	} {
		srv.Advance(step.advance)
		err := c.Webhooks.Test(ctx, webhookRef(srv, h.ID))
		if step.retryAfter == 0 {
			if err != nil {
				t.Fatalf("at %s: %v, want allowed", srv.Now(), err)
			}
			continue
		}
		e := apiError(t, err, http.StatusTooManyRequests, h.ID, "20s")
		if !errors.Is(err, platform.ErrRateLimited) || e.RetryAfter != step.retryAfter {
			t.Errorf("at %s: %v with Retry-After %s, want rate limited with %s", srv.Now(), err, e.RetryAfter, step.retryAfter)
		}
	}
	// The limit is per webhook.
	if err := c.Webhooks.Test(ctx, webhookRef(srv, other.ID)); err != nil {
		t.Errorf("testing another webhook: %v", err)
	}
	if err := srv.FlushDeliveries(ctx); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range srv.Deliveries() {
		got = append(got, d.WebhookID+" "+string(d.Event))
	}
	want := []string{h.ID + " webhook.test", h.ID + " webhook.test", other.ID + " webhook.test"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("deliveries (-want +got):\n%s", diff)
	}
}

func TestWithWebhookTimeoutRefusesNonPositive(t *testing.T) {
	t.Parallel()
	for _, d := range []time.Duration{0, -time.Second} {
		if srv, err := fake.New(fake.WithWebhookTimeout(d)); err == nil {
			srv.Close()
			t.Errorf("WithWebhookTimeout(%s) accepted", d)
		}
	}
}

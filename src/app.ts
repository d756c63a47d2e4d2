/**
 * The Probot app: wires GitHub events to the handlers, and starts the
 * outbox drainer and the expiry sweeper. No domain logic lives here: each
 * event is reduced to a plain value and handed to a handler.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { ApplicationFunction, Context, Probot } from "probot";
import { ConfigCache } from "./config-cache.js";
import { CONFIG_NAME, type ConfigResult } from "./config.js";
import { loadConfig as loadRepoConfig } from "./repo-config.js";
import { type CommentEvent, handleComment } from "./handle-command.js";
import { handlePullRequest, recheckPullRequests } from "./handle-pull-request.js";
import { routeIssueEvents } from "./issue-event-routes.js";
import { DEFAULT_DATABASE_URL, describeDatabase, openLedger } from "./ledger/open-ledger.js";
import type { Ledger } from "./ledger/types.js";
import { Drainer } from "./reflect/drainer.js";
import { type GitHubPort, octokitPort } from "./reflect/github-port.js";
import { parseMarker } from "./reflect/render.js";
import { healthReport } from "./health.js";
import { HolderLogins } from "./holder-logins.js";
import { rootWebhookHandler } from "./root-webhook.js";
import { Sweeper } from "./sweeper.js";
import { AppMetrics, metricsSettings } from "./metrics/app-metrics.js";
import { meterDeliveries } from "./metrics/metered-deliveries.js";
import { meteredLedger } from "./metrics/metered-ledger.js";
import { metricsHandler } from "./metrics/metrics-handler.js";
import { rateLimitSettings } from "./api/rate-limit.js";
import { serveApi } from "./api/serve-api.js";

export interface AppOptions {
  /** The ledger; default: opened from DATABASE_URL. */
  ledger?: Ledger;
  clock?: () => number;
  /** Start the drainer and sweeper loops (tests drive them by hand). Default true. */
  background?: boolean;
  sweepIntervalMs?: number;
  /** This app's id, to recognise its own comments; default APP_ID. */
  appId?: number;
  /** Exit cleanly on SIGTERM/SIGINT; default true outside tests. */
  handleSignals?: boolean;
  drainer?: Partial<ConstructorParameters<typeof Drainer>[0]>;
  /** How long a delivery may take before it is answered 500; default DELIVERY_DEADLINE_MS. */
  deliveryDeadlineMs?: number;
  /** How long a GitHub request may take once sent; default REQUEST_TIMEOUT_MS (tests scale it with the throttle). */
  requestTimeoutMs?: number;
  onReady?: (runtime: Runtime) => void;
  /** Metrics to record into (tests); default: on with METRICS=1 or METRICS_TOKEN, else none. */
  metrics?: AppMetrics | null;
}

/**
 * How long a delivery may take before the app answers 500. Probot's webhook
 * middleware answers 202 after 9 s whatever happens, and GitHub records that
 * as a success; the PostgreSQL connect timeout (3 s, one retry) fits under this.
 */
export const DELIVERY_DEADLINE_MS = 7_000;

export interface Runtime {
  ledger: Ledger;
  drainer: Drainer;
  sweeper: Sweeper;
  configs: ConfigCache;
  /** Stops taking deliveries, finishes what is in flight, and closes the ledger. */
  shutdown(): Promise<void>;
}

interface CommentLike {
  body?: string | null;
  user?: { login?: string; type?: string } | null;
  performed_via_github_app?: { id?: number } | null;
}

/** A comment this app wrote: by its app id, or a bot comment carrying its marker. Never answered. */
export function isOwnComment(comment: CommentLike, appId: number | undefined): boolean {
  if (appId !== undefined && comment.performed_via_github_app?.id === appId) return true;
  return comment.user?.type === "Bot" && parseMarker(comment.body ?? "") !== null;
}

function loadConfig(context: Context, cache: ConfigCache, repoId: number): Promise<ConfigResult> {
  return loadRepoConfig(cache, repoId, () => context.config(CONFIG_NAME));
}

export function issueLeases(opts: AppOptions = {}): ApplicationFunction {
  return async (app: Probot, { addHandler }) => {
    const clock = opts.clock ?? Date.now;
    // GET /metrics: off unless METRICS=1 or METRICS_TOKEN. Nothing is metered when off.
    const metricsServed = metricsSettings(process.env);
    const metrics = opts.metrics !== undefined ? opts.metrics : metricsServed && new AppMetrics();
    const metered = (l: Ledger) => (metrics ? meteredLedger(l, metrics) : l);
    // Serving a SQLite file: refused while another process serves it (one app process per file).
    const ledger = metered(opts.ledger ?? (await openLedger(process.env.DATABASE_URL || DEFAULT_DATABASE_URL, { serve: true })));
    const appId = opts.appId ?? (process.env.APP_ID ? Number(process.env.APP_ID) : undefined);
    const configs = new ConfigCache();
    const log = app.log.child({ name: "issue-leases" });

    // One Octokit per installation, so that the throttling plugin spaces all
    // of an installation's writes together.
    const ports = new Map<number, Promise<GitHubPort>>();
    const github = (installation: number) => {
      let port = ports.get(installation);
      if (!port) {
        port = app.auth(installation).then((octokit) => octokitPort(octokit, { appId, timeoutMs: opts.requestTimeoutMs, onResponse: metrics?.githubResponse }));
        port.catch(() => ports.delete(installation));
        ports.set(installation, port);
      }
      return port;
    };
    // How long an effect stays with a replica that stopped extending it (killed
    // mid-effect): another takes it over after this long. Default the Drainer's.
    const lockMs = Number(process.env.OUTBOX_LOCK_MS);
    const drainer: Drainer = new Drainer({
      ledger,
      github,
      clock,
      log,
      ...(lockMs > 0 ? { lockMs } : {}),
      onAttempt: metrics?.effectAttempt,
      // A lease changed on GitHub: re-check the open pull requests that close the issue.
      onLeaseChanged: async (installation, key) => {
        if ((await recheckPullRequests(ledger, installation, key, clock())) > 0) drainer.kick();
      },
      ...opts.drainer,
    });
    const sweeper = new Sweeper({
      ledger,
      clock,
      intervalMs: opts.sweepIntervalMs ?? Number(process.env.SWEEP_INTERVAL_MS || 60_000),
      onSwept: (r) => {
        metrics?.sweep(r);
        if (r.expired + r.reminded > 0) drainer.kick();
      },
      onError: (error) => log.error({ err: error }, "sweep failed; the next one will try again"),
    });

    const logins = new HolderLogins({ ledger, clock, onRenamed: () => drainer.kick() });

    const known = new Map<number, string>();
    const rememberRepo = async (repoId: number, full: string, installation: number) => {
      const stamp = `${full}@${installation}`;
      if (known.get(repoId) === stamp) return;
      await ledger.rememberRepo({ repoId, repo: full, installation }, clock());
      known.set(repoId, stamp);
    };

    // Deliveries being handled, so that shutdown can wait for their transactions.
    let shuttingDown = false;
    const inFlight = new Set<Promise<unknown>>();
    const deadlineMs = opts.deliveryDeadlineMs ?? DELIVERY_DEADLINE_MS;
    const track = <T>(work: () => Promise<T>): Promise<T> => {
      if (shuttingDown) throw Object.assign(new Error("shutting down; GitHub may redeliver"), { status: 503 });
      const p = work();
      inFlight.add(p);
      void p.finally(() => inFlight.delete(p)).catch(() => undefined);
      // Answered 500 before Probot's middleware answers 202 (at 9 s) whatever
      // happens: GitHub then lists the delivery as failed, and it can be
      // redelivered. If the work commits after all, the redelivery is a
      // duplicate and changes nothing.
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(Object.assign(new Error(`not handled within ${deadlineMs} ms (is the database answering?); GitHub may redeliver`), { status: 500 })),
          deadlineMs,
        );
      });
      return Promise.race([p, late]).finally(() => clearTimeout(timer));
    };

    app.on(["issue_comment.created", "issue_comment.edited"], (context) =>
      track(async () => {
        const { comment, issue, repository, installation } = context.payload;
        if (!installation || !comment.user || isOwnComment(comment, appId)) return;
        // An edit runs as the comment's author only when they made it: a
        // maintainer fixing a typo in someone's comment must not run its
        // command as that person, nor as themselves (they did not write it).
        if (context.payload.action === "edited" && context.payload.sender.id !== comment.user.id) return;
        const ev: CommentEvent = {
          delivery: context.id,
          installation: installation.id,
          repo: { id: repository.id, owner: repository.owner.login, name: repository.name },
          issue: { number: issue.number, state: issue.state, labels: (issue.labels ?? []).map((l) => (typeof l === "string" ? l : l.name ?? "")) },
          author: {
            id: comment.user.id,
            login: comment.user.login,
            type: comment.user.type ?? "User",
            association: comment.author_association,
          },
          body: comment.body ?? "",
          commentId: comment.id,
          previousBody:
            context.payload.action === "edited" ? ((context.payload as { changes?: { body?: { from?: string } } }).changes?.body?.from ?? null) : undefined,
        };
        // Before the command: a renamed holder's `/claim` or `/release` then finds their lease under the new login.
        await logins.seen(repository.id, { id: comment.user.id, login: comment.user.login });
        const port = octokitPort(context.octokit, { onResponse: metrics?.githubResponse });
        const handled = await handleComment(ev, {
          ledger,
          now: clock(),
          config: () => loadConfig(context, configs, repository.id),
          permission: (login) => port.permission({ owner: ev.repo.owner, repo: ev.repo.name }, login),
        });
        if (!handled) return;
        await rememberRepo(repository.id, repository.full_name, installation.id);
        log.info({ delivery: context.id, repo: repository.full_name, issue: issue.number, ...handled }, "command");
        drainer.kick();
      }),
    );

    app.on(
      ["pull_request.opened", "pull_request.edited", "pull_request.synchronize", "pull_request.reopened", "pull_request.closed"],
      (context) =>
        track(async () => {
          const { pull_request: pr, repository, installation, sender } = context.payload;
          if (!installation || !pr.user) return;
          await logins.seen(repository.id, { id: pr.user.id, login: pr.user.login });
          if (sender && sender.id !== pr.user.id) await logins.seen(repository.id, { id: sender.id, login: sender.login });
          const queued = await handlePullRequest(
            {
              delivery: context.id,
              installation: installation.id,
              repo: { id: repository.id, owner: repository.owner.login, name: repository.name },
              number: pr.number,
              body: pr.body ?? "",
              author: { id: pr.user.id, login: pr.user.login },
              headSha: pr.head.sha,
              open: pr.state === "open",
            },
            { ledger, now: clock(), config: () => loadConfig(context, configs, repository.id) },
          );
          if (queued) drainer.kick();
        }),
    );

    // The sender of any other event (an issue edited, a label added, a push)
    // shows their login too. Handlers above check their accounts first, as
    // they must before acting; for those this finds the pair remembered.
    app.onAny((context) =>
      track(async () => {
        const p = context.payload as { repository?: { id: number }; sender?: { id: number; login: string } };
        if (p.repository && p.sender) await logins.seen(p.repository.id, { id: p.sender.id, login: p.sender.login });
      }),
    );

    app.on("push", async (context) => {
      if (ConfigCache.pushTouchesConfig(context.payload)) configs.invalidate(context.payload.repository.id);
    });

    routeIssueEvents(app, {
      ledger,
      clock,
      track,
      rememberRepo,
      config: (context, repoId) => loadConfig(context, configs, repoId),
      seen: (repoId, account) => logins.seen(repoId, account),
      kick: () => drainer.kick(),
      port: { onResponse: metrics?.githubResponse },
    });

    const health = async (req: IncomingMessage, res: ServerResponse) => {
      if (req.method !== "GET" || (req.url ?? "").split("?")[0] !== "/health") return false;
      const report = await healthReport({ ledger, drainer, sweeper, clock });
      res.writeHead(report.ok ? 200 : 503, { "content-type": "application/json" }).end(JSON.stringify(report.body));
      return true;
    };
    // Read before the routes are added: a wrong API_RATE_LIMIT ends the start, naming it.
    const rateLimit = rateLimitSettings(process.env);
    if (metrics) {
      metrics.watchOutbox(ledger, clock);
      meterDeliveries(app.webhooks, metrics);
    }
    try {
      addHandler(health);
      if (metrics && metricsServed) addHandler(metricsHandler(metrics, metricsServed));
      addHandler(await rootWebhookHandler(app));
      addHandler(serveApi(app, { ledger, clock, configs, rateLimit, rememberRepo, kick: () => drainer.kick(), track, log }));
    } catch {
      // No HTTP server (tests through probot.receive): no /health or /metrics route, no webhooks at /.
    }
    const database = opts.ledger ? "the ledger given to issueLeases()" : describeDatabase(process.env.DATABASE_URL || DEFAULT_DATABASE_URL);
    const schema = (await ledger.schemaVersion()).current;
    log.info({ database, schema_version: schema, app_id: appId }, `issue-leases ready: app ${appId}, ${database}, schema version ${schema}`);

    const runtime: Runtime = {
      ledger,
      drainer,
      sweeper,
      configs,
      async shutdown() {
        shuttingDown = true;
        await Promise.allSettled([...inFlight]);
        await sweeper.stop();
        await drainer.stop();
        await ledger.close();
      },
    };

    if (opts.background !== false) {
      await ledger.unparkEffects(clock());
      drainer.start();
      sweeper.start();
    }
    if (opts.handleSignals ?? !process.env.VITEST) {
      let stopping = false;
      const stop = (signal: string) => {
        if (stopping) return;
        stopping = true;
        log.info({ signal }, "shutting down: finishing the transaction and the effect in flight");
        const force = setTimeout(() => process.exit(1), 10_000);
        force.unref();
        runtime.shutdown().then(
          () => process.exit(0),
          (error) => {
            log.error({ err: error }, "shutdown failed");
            process.exit(1);
          },
        );
      };
      process.once("SIGTERM", () => stop("SIGTERM"));
      process.once("SIGINT", () => stop("SIGINT"));
    }
    opts.onReady?.(runtime);
  };
}

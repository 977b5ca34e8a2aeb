import type {
  TrackerDuplicateCheckResponse,
  TrackerFlakyTestsResponse,
  TrackerIncidentsResponse,
  TrackerIssueLinksResponse,
  TrackerMapping,
  TrackerSourceRegisterResponse,
  TrackerStatusResponse,
} from './wire.generated';
import { OpsClient, type ClientOptions } from './client';

/**
 * The tracker plane of one namespace: `new Tracker('acme', { baseUrl, token })`. Duplicate issue
 * checks, issue-to-PR links, flaky tests and incidents, read live from the team's own ClickHouse once an
 * admin has registered it (and LOOM_TRACKER_ORG is set); until then each call is a LoomApiError
 * with code `not_configured` (501) saying how to turn it on.
 */
export class Tracker {
  readonly client: OpsClient;

  constructor(
    readonly namespace: string,
    options: ClientOptions,
  ) {
    this.client = new OpsClient(options);
  }

  status(): Promise<TrackerStatusResponse> {
    return this.client.call('tracker.status', { namespace: this.namespace });
  }

  /** Admin: the connection (`url: "embedded"` or a ClickHouse HTTP URL) and the column mapping. */
  register(source: { connection: { url: string; user?: string; password?: string; database: string }; mapping: TrackerMapping; issue_url_base?: string }): Promise<TrackerSourceRegisterResponse> {
    return this.client.call('tracker.source_register', { namespace: this.namespace, ...source });
  }

  /** Older issues ranked by how likely the new one (`title`, `body`) or one in the tracker (`issue`) duplicates each. */
  duplicateCheck(issue: { title?: string; body?: string; issue?: string; created_before?: string; limit?: number }): Promise<TrackerDuplicateCheckResponse> {
    return this.client.call('tracker.duplicate_check', { namespace: this.namespace, ...issue });
  }

  issueLinks(issue: string, options: { limit?: number } = {}): Promise<TrackerIssueLinksResponse> {
    return this.client.call('tracker.issue_links', { namespace: this.namespace, issue, ...options });
  }

  flakyTests(options: { since?: string; test?: string; limit?: number; offset?: number; runs?: number } = {}): Promise<TrackerFlakyTestsResponse> {
    return this.client.call('tracker.flaky_tests', { namespace: this.namespace, ...options });
  }

  /** Incidents newest first, with the PRs and commits that caused or fixed each; needs `mapping.incidents` in the registered source. */
  incidents(options: { since?: string; until?: string; pr?: number; repository?: string; commit?: string; severity?: string; status?: string; limit?: number; offset?: number } = {}): Promise<TrackerIncidentsResponse> {
    return this.client.call('tracker.incidents', { namespace: this.namespace, ...options });
  }
}

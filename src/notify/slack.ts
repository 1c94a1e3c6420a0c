// An event in the shape of Slack's incoming webhooks: `text` (the notification and fallback line)
// and `blocks` (the same, with the resources and revision as context).

import type { EventType, NotifyEvent } from './events.js';

export interface SlackMessage {
  readonly text: string;
  readonly blocks: readonly object[];
}

const TITLES: Readonly<Record<EventType, string>> = {
  reconcile_failed: ':x: Reconcile failed',
  recovered: ':white_check_mark: Recovered',
  create_uncertain: ':warning: Create uncertain',
  change_blocked: ':no_entry: Change blocked',
  resource_orphaned: ':wastebasket: Resource orphaned',
  config_invalid: ':x: Config invalid',
  revision_applied: ':rocket: Revision applied',
  leader_changed: ':arrows_counterclockwise: Leader changed',
  fetch_failed: ':satellite_antenna: Git fetch failed',
  drift_detected: ':mag: Drift detected',
  policy_denied: ':octagonal_sign: Denied by policy',
  token_expiring: ':hourglass_flowing_sand: Token expiring',
  token_rolled: ':key: Token rolled',
};

/** Slack reads &, < and > as markup. */
const escapeText = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** At most this many resource keys are listed; the rest are counted. */
const LISTED = 10;

export function slackMessage(e: NotifyEvent): SlackMessage {
  const where = e.workspace ? `${e.host} (workspace ${e.workspace})` : e.host;
  const text = `${TITLES[e.event]} on ${escapeText(where)}: ${escapeText(e.reason)}`;
  const listed = e.resources
    .slice(0, LISTED)
    .map((r) => `\`${escapeText(r)}\``)
    .join(', ');
  const more = e.resources.length > LISTED ? ` and ${e.resources.length - LISTED} more` : '';
  const context = [
    ...(e.resources.length ? [`Resources: ${listed}${more}`] : []),
    `Revision: ${e.revision === null ? 'none yet' : `\`${escapeText(e.revision)}\``}`,
    `At: ${e.at}`,
  ];
  return {
    text,
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: `*${TITLES[e.event]}* on ${escapeText(where)}\n${escapeText(e.reason)}` } },
      { type: 'context', elements: context.map((c) => ({ type: 'mrkdwn', text: c })) },
    ],
  };
}

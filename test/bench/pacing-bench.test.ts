// The pacing bench's report: the runs per credential, then the runs paced by the emulator's count
// beside the ideal time (calls ÷ rate), and goals that say met or MISSED from the figures alone.

import { describe, expect, it } from 'vitest';
import { renderPacingGoal, renderPacingTable, type PacingRow } from '../../bench/pacing-bench.js';

const row = (label: string, applyMs: number, extra: Partial<PacingRow> = {}): PacingRow => ({
  label,
  calls: 600,
  perCredential: { a: 600 },
  wallMs: applyMs + 1000,
  applyMs,
  limited: 0,
  ...extra,
});

const perCredential = [row('one account, one credential', 50_000), row('two accounts, two credentials', 52_000), row('two accounts, one credential (one shared pace)', 110_000)];
const paced = (wallMs: number, limited: number, sent = true): PacingRow =>
  row(sent ? "paced by the emulator's headers" : 'no headers: 429s alone', wallMs - 1000, { limited, perCredential: { a: 600 + limited }, byHeaders: { sent, idealMs: 60_000 } });

describe('the pacing bench report', () => {
  it('shows the runs paced by headers in their own table, with the ideal time and the ratio', () => {
    const text = renderPacingTable([...perCredential, paced(52_000, 0), paced(51_000, 24, false)], '100/10');
    const [first, second] = text.split("One credential against the emulator at 100/10, edgesync's own ceiling 100000/10");
    expect(first).toContain('| two accounts, one credential (one shared pace) | 600 |');
    expect(first).not.toContain('paced by');
    expect(second).toContain("| paced by the emulator's headers | 600 | 600 | 0 | 52.00 s | 51.00 s | 60.00 s | 0.87× |");
    expect(second).toContain('| no headers: 429s alone | 600 | 624 | 24 | 51.00 s | 50.00 s | 60.00 s | 0.85× |');
  });

  it('says the goal is met with at most one 429 within 1.1× of the ideal, and missed otherwise', () => {
    const goal = (r: PacingRow) => renderPacingGoal([...perCredential, r]).split('\n')[1];
    expect(goal(paced(65_000, 1))).toBe(
      "- Paced by the emulator's headers, 600 actions finish with 1 answer of 429 in 65.00 s, 1.08× the ideal 60.00 s (goal at most 1 answer of 429 and at most 1.1×: met).",
    );
    expect(goal(paced(67_000, 0))).toContain('1.12× the ideal 60.00 s (goal at most 1 answer of 429 and at most 1.1×: MISSED)');
    expect(goal(paced(50_000, 2))).toContain('with 2 answers of 429');
    expect(goal(paced(50_000, 2))).toMatch(/MISSED\)\.$/);
  });

  it('keeps the goal per credential as it was', () => {
    expect(renderPacingGoal(perCredential)).toMatch(
      /^- Two credentials finish 600 calls in 52\.00 s, one alone its 600 in 50\.00 s: 1\.04× \(goal about 1×, at most 1\.15×: met\); under one shared credential the same calls take 110\.00 s\.$/,
    );
  });
});

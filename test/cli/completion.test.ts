import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli.js';
import { completionScript } from '../../src/cli/completion.js';

/** What bash completes for the words typed so far (the last one being completed), with the script loaded. */
function bashCompletes(typed: readonly string[]): string[] {
  const script = completionScript(buildProgram(), 'bash');
  const words = ['edgesync', ...typed].map((w) => `'${w}'`).join(' ');
  const out = execFileSync('bash', ['--noprofile', '--norc', '-c', `${script}\nCOMP_WORDS=(${words}); COMP_CWORD=${typed.length}; _edgesync; printf '%s\\n' "\${COMPREPLY[@]}"`], {
    encoding: 'utf8',
    cwd: '/',
  });
  return out.split('\n').filter(Boolean);
}

describe('edgesync completion', () => {
  it('completes commands, their flags and a flag’s choices in bash', () => {
    expect(bashCompletes(['pl'])).toEqual(['plan']);
    expect(bashCompletes(['plan', '--for'])).toEqual(['--format']);
    expect(bashCompletes(['plan', '--format', ''])).toEqual(['text', 'json', 'markdown']);
    expect(bashCompletes(['state', 're'])).toEqual(['resolve']);
    expect(bashCompletes(['state', 'resolve', '--rec'])).toEqual(['--recreate']);
    expect(bashCompletes(['--config', 'x', 'val'])).toEqual(['validate']);
  });

  it('offers every command and every flag the program takes, in each shell', () => {
    const program = buildProgram();
    for (const shell of ['bash', 'zsh', 'fish'] as const) {
      const script = completionScript(program, shell);
      for (const cmd of program.commands) {
        expect(script, `${shell}: ${cmd.name()}`).toContain(cmd.name());
        for (const option of cmd.options) expect(script, `${shell}: ${cmd.name()} ${option.long}`).toContain(shell === 'fish' ? `-l ${option.long!.slice(2)}` : option.long!);
      }
    }
  });

  it('prints a bash script bash reads without error', () => {
    expect(() => execFileSync('bash', ['-n', '-c', completionScript(buildProgram(), 'bash')])).not.toThrow();
  });
});

// The command line as a whole: an unknown option or command is refused with the closest one.

import { CommanderError } from 'commander';
import { afterEach, expect, it, vi } from 'vitest';
import { buildProgram } from '../src/cli.js';

afterEach(() => vi.restoreAllMocks());

async function refused(...args: string[]): Promise<string> {
  let err = '';
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => ((err += String(chunk)), true));
  vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  await expect(buildProgram().parseAsync(['node', 'edgesync', ...args])).rejects.toBeInstanceOf(CommanderError);
  return err;
}

it('suggests the closest option for a mistyped one', async () => {
  expect(await refused('apply', '--base-ulr', 'http://127.0.0.1:8787/client/v4')).toMatch(/^error: unknown option '--base-ulr'\n\(Did you mean --base-url\?\)\n/);
  expect(await refused('plan', '--detailed-exitcdoe')).toMatch(/^error: unknown option '--detailed-exitcdoe'\n\(Did you mean --detailed-exitcode\?\)\n/);
});

it('suggests the closest command for a mistyped one', async () => {
  expect(await refused('valdiate')).toMatch(/^error: unknown command 'valdiate'\n\(Did you mean validate\?\)\n/);
  expect(await refused('state', 'shwo', 'GatewayList/x')).toMatch(/^error: unknown command 'shwo'\n\(Did you mean show\?\)\n/);
});

// `npm start`: the emulator on loopback (and, once the daemon lands, `edgesync watch` on examples/).
import { main } from './cli.js';

await main([process.argv[0], 'edgesync', 'emulator', '--port', '8787', '--token', 'dev-token']);

// Bundles the room page (src/room.js and livekit-client) into one ES2020
// module at web/static/dist/room.js, minified, with a source map. The Go
// server embeds web/static, so run this before `go build`.
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const here = dirname(fileURLToPath(import.meta.url));

await build({
  entryPoints: [join(here, 'src/room.js')],
  outfile: join(here, '../static/dist/room.js'),
  bundle: true,
  format: 'esm',
  target: 'es2020',
  platform: 'browser',
  minify: true,
  sourcemap: true,
  sourcesContent: false,
  legalComments: 'linked',
  logLevel: 'info',
});

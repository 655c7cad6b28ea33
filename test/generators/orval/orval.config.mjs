// orval, fetch client, one file. The base URL is read when each call is made (`baseUrl.runtime`):
// orval's fetch client has no other way to be given one at run time.
export default {
  swe: {
    input: { target: '../../../openapi/openapi.json' },
    output: {
      target: './client/api.ts',
      client: 'fetch',
      mode: 'single',
      baseUrl: { runtime: 'server.baseUrl', imports: [{ name: 'server', importPath: '../server' }] },
    },
  },
};

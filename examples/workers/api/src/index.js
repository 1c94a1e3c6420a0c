// Entry module of the example Worker: answers every request with a greeting.
// greeting.js is a second module of the same upload.

import { greet } from './greeting.js';

export default {
  async fetch(request, env) {
    const name = new URL(request.url).searchParams.get('name') ?? 'world';
    return new Response(greet(env.GREETING ?? 'Hello', name), {
      headers: { 'content-type': 'text/plain; charset=utf-8' },
    });
  },
};

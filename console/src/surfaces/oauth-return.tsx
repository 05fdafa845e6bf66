// Where a gateway's authorization server sends the browser back: hands the code and state to the server.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api';
import { linkClick } from '../router';
import { PENDING_KEY } from './agents';

export function OAuthReturn() {
  const [result, setResult] = useState<string | null>(null);
  const pending = JSON.parse(sessionStorage.getItem(PENDING_KEY) ?? '{"back":"/agents","gateway":"the gateway"}');
  useEffect(() => {
    const query = new URLSearchParams(location.search);
    const params: Record<string, string> = {};
    for (const key of ['code', 'state', 'error', 'error_description', 'iss']) {
      const value = query.get(key);
      if (value !== null) params[key] = value;
    }
    // the code is single-use: keep it out of the history and of a reload
    history.replaceState(null, '', location.pathname);
    api
      .finishOAuth(params)
      .then((status) => setResult(`${pending.gateway} is ${status.status}.`))
      .catch((e) => setResult(e instanceof Error ? e.message : String(e)))
      .finally(() => sessionStorage.removeItem(PENDING_KEY));
  }, []);
  return (
    <section aria-labelledby="oauth-title">
      <h1 id="oauth-title">Authorization</h1>
      <p role="status">{result ?? 'Finishing the authorization…'}</p>
      {result && (
        <a href={'/console' + pending.back} onClick={linkClick(pending.back)}>
          Back to the agent
        </a>
      )}
    </section>
  );
}

import { useState } from 'preact/hooks';
import { ApiError, organisationChoices, signIn } from '../api.ts';
import { ErrorNote } from '../ui.tsx';
import { msg } from '../messages.ts';

export function SignIn() {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [orgs, setOrgs] = useState<string[] | null>(null);
  const [org, setOrg] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  async function submit(e: Event) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await signIn(email, password, orgs ? org : undefined);
      if (!location.hash) location.hash = '#/sites';
    } catch (err) {
      const choices = err instanceof ApiError && err.status === 422 ? organisationChoices(err) : null;
      if (choices) {
        setOrgs(choices);
        setOrg(choices[0]);
      } else setError(err);
    } finally {
      setBusy(false);
    }
  }

  return (
    <section class="card signin" aria-labelledby="signin-title">
      <h1 id="signin-title">{msg.signIn.title}</h1>
      <form onSubmit={submit}>
        <label for="email">{msg.signIn.email}</label>
        <input id="email" type="email" autocomplete="username" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
        <label for="password">{msg.signIn.password}</label>
        <input id="password" type="password" autocomplete="current-password" required value={password} onInput={(e) => setPassword(e.currentTarget.value)} />
        {orgs && (
          <>
            <label for="org">{msg.signIn.organisation}</label>
            <p class="small" id="org-help">
              {msg.signIn.several}
            </p>
            <select id="org" aria-describedby="org-help" value={org} onChange={(e) => setOrg(e.currentTarget.value)}>
              {orgs.map((o) => (
                <option key={o} value={o}>
                  {o}
                </option>
              ))}
            </select>
          </>
        )}
        <button type="submit" disabled={busy}>
          {busy ? msg.signIn.busy : msg.signIn.button}
        </button>
      </form>
      <ErrorNote error={error} />
      <p class="small">{msg.session.kept}</p>
    </section>
  );
}

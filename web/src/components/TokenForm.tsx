// Asks for the read token of a server whose reads need one, and keeps it for this tab
// (web/src/readToken.ts). Reloading after it is saved makes every page read with it.
import { useState } from 'preact/hooks';
import { forgetToken, readToken, saveToken } from '../readToken.js';

export function TokenForm() {
  const [value, setValue] = useState('');
  const refused = readToken() !== null;
  return (
    <form
      class="token-form"
      aria-labelledby="token-form-title"
      onSubmit={(e) => {
        e.preventDefault();
        const token = value.trim();
        if (!token) return;
        saveToken(token);
        location.reload();
      }}
    >
      <p id="token-form-title">
        {refused
          ? 'The server refused the token this tab holds. Enter another one:'
          : 'Reads on this server need a token (a validator key or the admin token):'}
      </p>
      <label for="read-token">Read token</label>{' '}
      <input
        id="read-token"
        name="read-token"
        type="password"
        autocomplete="off"
        spellcheck={false}
        required
        value={value}
        onInput={(e) => setValue(e.currentTarget.value)}
      />{' '}
      <button type="submit">Read with this token</button>
      <p class="hint">Kept for this tab only and sent with each read, never in the address.</p>
    </form>
  );
}

/** In the header while a token is held: forget it and read without one. */
export function ForgetToken() {
  if (readToken() === null) return null;
  return (
    <button
      type="button"
      class="forget-token"
      onClick={() => {
        forgetToken();
        location.reload();
      }}
    >
      Forget read token
    </button>
  );
}

/**
 * The `fetch` every OAuth request goes through (discovery, registration, token and
 * refresh requests): the URL policy that guards server URLs applies to the metadata,
 * authorization and token endpoints a server points us to, so a deployment cannot be
 * steered into its private network by a metadata document.
 */
import { checkServerUrl } from "../src/core/url-policy.js";

export function oauthFetch(allowPrivate: boolean, base: typeof fetch = fetch): typeof fetch {
  return (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    const check = checkServerUrl(url, { allowPrivate });
    if (!check.ok) return Promise.reject(new Error(`OAuth request refused: ${check.reason}`));
    return base(input, init);
  };
}

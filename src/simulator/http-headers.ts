/**
 * Headers on every simulator response, as on a recorded live response of generativelanguage.googleapis.com
 * (docs/reference/gemini-api-facts.md §2.5).
 */
export const BASE_HEADERS: Readonly<Record<string, string>> = {
  Vary: 'Origin, X-Origin, Referer',
  Server: 'scaffolding on HTTPServer2',
  'X-XSS-Protection': '0',
  'X-Frame-Options': 'SAMEORIGIN',
  'X-Content-Type-Options': 'nosniff',
};

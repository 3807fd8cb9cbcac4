/**
 * Word lists for the synthetic text of the item datasets (feedback comments, assistant questions
 * and answers, search terms, code snippets). Picked by hash, so text is reproducible per seed.
 */

export const FEEDBACK_COMMENTS = [
  'This page was exactly what I needed.',
  'The example does not match the current API response.',
  'Could you add a section on error handling?',
  'Great explanation, thanks!',
  'The link to the quickstart is broken.',
  'I could not find how to rotate my API key.',
  'Please document the rate limits more clearly.',
  'Outdated screenshot in step 3.',
  'This works, but the parameter names are confusing.',
  'Añadir ejemplos en español sería útil 🙏',
  'Missing information about pagination.',
  'Clear and concise. 👍',
];

export const CODE_SNIPPETS = [
  "curl -H 'Authorization: Bearer mint_…' https://api.mintlify.com/v1/analytics/p/visitors",
  "const client = new Client({ apiKey: process.env.API_KEY });",
  "import requests\nrequests.get(url, headers=headers, timeout=10)",
  "npm install @acme/sdk",
  "export default defineConfig({ theme: 'maple' });",
  "SELECT path, count() FROM views GROUP BY path",
];

export const FILENAMES = ['index.ts', 'client.py', 'request.sh', 'docs.json', 'main.go', 'config.yaml'];
export const LANGUAGES = ['typescript', 'python', 'bash', 'json', 'go', 'yaml'];

export const QUESTIONS = [
  'How do I authenticate API requests?',
  'What is the rate limit for the analytics API?',
  'How can I add a custom domain?',
  'Can I export my analytics to a warehouse?',
  'Why is my deployment failing?',
  'How do I configure SSO for my team?',
  'Where do I find my project id?',
  'How do webhooks retry failed deliveries?',
  'Does the API support pagination with cursors?',
  'How do I change the theme colors?',
  '¿Cómo configuro la navegación?',
  'What does error 429 mean?',
];

export const ANSWERS = [
  'Send your API key in the Authorization header as a Bearer token.',
  'Each organization can make 100 analytics requests per hour.',
  'Add the domain in the dashboard settings, then create a CNAME record.',
  'Yes: use the analytics export endpoints and load the pages into your warehouse.',
  'Check the build logs in the deployments tab for the failing step.',
  'Enable SSO under organization settings and connect your identity provider.',
  'Your project id is on the API keys page of the dashboard.',
  'Webhooks retry with exponential backoff for up to 24 hours.',
];

export const CLARIFYING_QUESTIONS = [
  'Which SDK are you using?',
  'Do you mean the REST API or the dashboard?',
  'Are you self-hosting or on the cloud plan?',
];

export const QUERY_CATEGORIES = ['authentication', 'billing', 'deployment', 'api-usage', 'customization', 'integrations'];

export const SEARCH_WORDS = [
  'api', 'auth', 'webhook', 'rate limit', 'pagination', 'deploy', 'domain', 'sso', 'theme', 'search', 'analytics',
  'export', 'error', 'token', 'sdk', 'cli', 'navigation', 'openapi', 'snippet', 'redirect', 'cache', 'billing',
  'team', 'invite', 'preview', 'custom css', 'markdown', 'mdx', 'components', 'changelog',
];

export const SEARCH_SUFFIXES = ['', ' example', ' setup', ' error', ' limit', ' python', ' node', ' how to', ' not working', ' docs'];

/** `items[hash % length]`. */
export function pick<T>(items: readonly T[], hash: number): T {
  return items[(hash >>> 0) % items.length]!;
}

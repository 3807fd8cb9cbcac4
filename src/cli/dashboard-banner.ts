/**
 * The startup line of a served dashboard: the address to open, with the generated token in it so a
 * user can click it, and where that token is kept. Written to the command's own terminal only;
 * logs carry the address without the token.
 */
import type { Dashboard } from '../ops/dashboard-server.js';

export function dashboardBanner(dashboard: Dashboard): string {
  const { url } = dashboard;
  const token = dashboard.tokenFile === undefined ? 'token: MINTPIPE_DASHBOARD_TOKEN' : `token in ${dashboard.tokenFile}`;
  return `dashboard: ${dashboard.browserUrl}   queues: ${url}/queues   metrics: ${url}/metrics (${token})\n`;
}

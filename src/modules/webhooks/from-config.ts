// The webhook dispatcher as the server's processes run it (docwright serve, docwright worker).
import type { Config } from '../../config/config.ts';
import type { Database } from '../../db/database.ts';
import type { Logger } from '../../util/logger.ts';
import { WebhookDispatcher } from './dispatcher.ts';

export function createWebhookDispatcher(
  db: Database,
  config: Pick<Config, 'secretKey' | 'webhooks'>,
  logger: Logger,
): WebhookDispatcher {
  return new WebhookDispatcher({
    db,
    serverKey: config.secretKey,
    logger: logger.child({ component: 'webhooks' }),
    allowPrivateAddresses: config.webhooks.allowPrivateAddresses,
  });
}

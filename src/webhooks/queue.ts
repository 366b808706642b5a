// Sends webhook deliveries to the delivery queue, one delivery id per message.

/** The queue's longest delay for one message (12 hours); a longer wait is several hops. */
export const MAX_QUEUE_DELAY_SECONDS = 43_200;
/** The most messages one sendBatch call takes. */
const MAX_BATCH_MESSAGES = 100;

/** Sends each delivery id as a message, after `delaySeconds` (whole seconds, capped at the queue's maximum). */
export async function enqueueDeliveries(queue: Queue<string>, deliveryIds: readonly string[], delaySeconds = 0): Promise<void> {
  const delay = Math.min(Math.max(0, Math.ceil(delaySeconds)), MAX_QUEUE_DELAY_SECONDS);
  for (let i = 0; i < deliveryIds.length; i += MAX_BATCH_MESSAGES) {
    const messages = deliveryIds.slice(i, i + MAX_BATCH_MESSAGES).map((body) => ({ body }));
    await queue.sendBatch(messages, { delaySeconds: delay });
  }
}

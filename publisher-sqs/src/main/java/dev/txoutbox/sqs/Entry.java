package dev.txoutbox.sqs;

import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.RunOrder;
import java.util.Map;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequestEntry;

/**
 * One message ready to send.
 *
 * @param index the message's position in the publish call, also its batch entry id
 * @param message the message
 * @param queue its queue, a URL or a name, as the router gave it
 * @param attributes its SQS message attributes
 * @param size its size as SQS counts it (body and attributes, UTF-8 bytes)
 * @param groupId its {@code MessageGroupId} on a FIFO queue, {@code null} on a standard queue
 */
record Entry(
    int index,
    OutboxMessage message,
    String queue,
    Map<String, MessageAttributeValue> attributes,
    int size,
    String groupId) {

  /** The batch entry id, unique within one request. */
  String id() {
    return Integer.toString(index);
  }

  /** The aggregate whose order this message keeps. */
  RunOrder.Aggregate aggregate() {
    return RunOrder.Aggregate.of(message);
  }

  SendMessageBatchRequestEntry toRequestEntry() {
    SendMessageBatchRequestEntry.Builder entry =
        SendMessageBatchRequestEntry.builder()
            .id(id())
            .messageBody(message.payload())
            .messageAttributes(attributes);
    if (groupId != null) {
      entry.messageGroupId(groupId).messageDeduplicationId(message.id().toString());
    }
    return entry.build();
  }
}

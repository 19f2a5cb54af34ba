/** Where the sandbox identity provider "sends" SMS and e-mail: a list the outbox page shows. */
export interface OutboxMessage {
  channel: 'sms' | 'email';
  to: string;
  text: string;
  /** The code in the message, for tests and for the page's copy button. */
  code?: string;
  at: string;
}

export class Outbox {
  private readonly messages: OutboxMessage[] = [];

  send(message: OutboxMessage): void {
    this.messages.push(message);
    if (this.messages.length > 200) this.messages.shift();
  }

  /** Newest first. */
  list(): readonly OutboxMessage[] {
    return [...this.messages].reverse();
  }

  /** The newest code sent to `to`. */
  latestCodeFor(to: string): string | undefined {
    return this.list().find((message) => message.to === to && message.code)?.code;
  }
}

/**
 * The `state` the gateway gives the platform when subscribing a user to webhooks: an opaque,
 * unguessable handle that maps back to the user. Never the user id or anything personal, since it
 * travels in every webhook. In memory now, behind this interface for a shared store later.
 */
export interface RoutingHandleStore {
  /** The user's handle, created on first use. */
  handleFor(userId: string): Promise<string>;
  userFor(handle: string): Promise<string | undefined>;
  /** Records that the platform cancelled one of the user's webhook types. */
  markCancelled(userId: string, webhookType: string): Promise<void>;
  cancelledTypes(userId: string): Promise<string[]>;
  deleteUser(userId: string): Promise<void>;
}

import { TransportError } from './request-client';

export type HubHandler = (data: unknown, headers: Record<string, string>) => Promise<unknown>;

/**
 * The in-process stand-in for NATS core request/reply: subjects map to handlers, and several
 * handlers on one subject share requests round-robin, as a queue group does.
 */
export class InProcessHub {
  private readonly handlers = new Map<string, HubHandler[]>();
  private readonly cursor = new Map<string, number>();

  register(subject: string, handler: HubHandler): () => void {
    const list = this.handlers.get(subject) ?? [];
    list.push(handler);
    this.handlers.set(subject, list);
    return () => {
      const current = this.handlers.get(subject) ?? [];
      this.handlers.set(
        subject,
        current.filter((h) => h !== handler),
      );
    };
  }

  async request(subject: string, data: unknown, headers: Record<string, string>): Promise<unknown> {
    const list = this.handlers.get(subject);
    if (!list || list.length === 0) throw new TransportError('no_responders', subject, `nothing serves ${subject}`);
    const index = (this.cursor.get(subject) ?? 0) % list.length;
    this.cursor.set(subject, index + 1);
    // A structured clone keeps the in-process path honest: handlers get a copy, as over the wire.
    return list[index]!(structuredClone(data), headers);
  }
}

/** One hub per process: the embedded topology's gateway and embedder meet here. */
export const processHub = new InProcessHub();

/**
 * The memory a host's processes keep their unsent events in
 * (native/core/common/event_slots.h has the why; the layout is the
 * catalogue's "eventSlots"). Node makes it for each host it starts, hands
 * the host a descriptor of it, and reads it twice: while the host runs, how
 * many calls into plugin code its process has open (is it inside plugin
 * code, at a time bound?); once the host has ended, what its processes
 * wrote there and never sent: the "enter" of a call a process died or hung
 * in, and what it did before. A host without it sends every "enter" at once.
 */
import { native } from '../native/binding.js';

export class EventSlots {
  private closed = false;

  private constructor(
    private readonly fd: number,
    /** The host's descriptor, until it is handed over (then closed by whoever handed it). */
    readonly hostFd: number,
  ) {}

  /** New memory, or none when the system will not give it (the host then does without). */
  static create(): EventSlots | undefined {
    try {
      const [fd, hostFd] = native().eventSlotsCreate();
      return new EventSlots(fd, hostFd);
    } catch {
      return undefined;
    }
  }

  /** Calls into plugin code open now in the host's own process (slot 0), or a task child's (1 + its index). */
  openCalls(slot = 0): number {
    return this.closed ? 0 : native().eventSlotsOpenCalls(this.fd, slot);
  }

  /** What was never sent, one JSON array per process that left any; only once the host has ended. */
  takeUnsent(): Buffer[] {
    return this.closed ? [] : native().eventSlotsTake(this.fd);
  }

  /** Node's descriptor closed: the memory goes once the host's processes are gone too. */
  release(): void {
    if (this.closed) return;
    this.closed = true;
    native().closeDescriptor(this.fd);
  }
}

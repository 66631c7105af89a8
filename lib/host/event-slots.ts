/**
 * The memory a host's processes keep their unsent events in
 * (native/core/common/event_slots.h has the why; the layout is the
 * catalogue's "eventSlots"). Node makes it for each host it forks, hands
 * the host its descriptor, and reads it twice: while the host runs, how
 * many calls into plugin code are open (is the host inside plugin code, at
 * a time limit?); once the host has ended, what its processes wrote there
 * and never sent: the "enter" of a call a process died or hung in, and
 * what it did before. A host without it sends every "enter" at once.
 */
import { native, type EventSlotsHandle } from '../native/binding.js';

export class EventSlots {
  private released = false;

  private constructor(
    private readonly handle: EventSlotsHandle,
    /** The host's descriptor, until it is handed over. */
    readonly fd: number,
  ) {}

  /** New memory, or none when the system will not give it (the host then does without). */
  static create(): EventSlots | undefined {
    try {
      const [handle, fd] = native().eventSlotsCreate();
      return new EventSlots(handle, fd);
    } catch {
      return undefined;
    }
  }

  /** Calls into plugin code open now in the host's own process (slot 0), or a task child's (1 + its index). */
  openCalls(slot = 0): number {
    return this.released ? 0 : native().eventSlotsOpenCalls(this.handle, slot);
  }

  /** What was never sent, one JSON array per process that left any; only once the host has ended. */
  takeUnsent(): Buffer[] {
    return this.released ? [] : native().eventSlotsTake(this.handle);
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    native().eventSlotsRelease(this.handle);
  }
}

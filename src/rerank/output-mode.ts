// Output-mode memory: endpoints that refused json_schema (or json mode, or `stream_options`) are
// asked with the next mode from then on, so only the first request to such an endpoint pays for
// the refusal.
import { NEXT_MODE, type CallFailure, type OutputMode } from './llm-call.js';

interface OutputSettings {
  mode: OutputMode;
  /** Ask for a usage chunk at the end of the stream. */
  includeUsage: boolean;
}

export class OutputModeMemory {
  #mode: OutputMode = 'json_schema';
  #includeUsage = true;

  current(): OutputSettings {
    return { mode: this.#mode, includeUsage: this.#includeUsage };
  }

  /**
   * After a failed attempt made with `attempt`: remembers a refused option and returns true when the
   * call should be repeated without it (only while nothing was received, so no grade is lost).
   */
  downgrade(attempt: OutputSettings, failure: CallFailure, receivedGrades: number): boolean {
    if (receivedGrades > 0) return false;
    if (failure === 'stream_options_rejected') {
      this.#includeUsage = false;
      return true;
    }
    const next = NEXT_MODE[attempt.mode];
    if (failure === 'format_rejected' && next) {
      // A concurrent call may have moved on already: never go back up.
      if (this.#mode === attempt.mode) this.#mode = next;
      return true;
    }
    return false;
  }
}

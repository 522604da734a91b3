// What a learned boost is, for both a project's own learning (own/) and shared learning (shared/).

/** Why a tool was raised: its boost and how many similar requests it served (for the explanation). */
export interface LearnedBoost {
  boost: number;
  /** The boost for a tool its list marks destructive, which needs DESTRUCTIVE_EVIDENCE times the reports. */
  cautiousBoost: number;
  similarRequests: number;
  /** Learned from other projects' reports (shared/shared-model.ts): `similarRequests` counts projects. */
  shared?: true;
  /** A step many projects took with this server's tools, whatever the request (shared/common-steps.ts). */
  commonStep?: true;
}

/**
 * A tool its list marks destructive needs this many times the reports of another for the same boost
 * (its prior is priorReports × this): a prompt-injected agent's "succeeded" must not raise a
 * delete as easily as an honest router's many reports raise a read (docs/ranking.md, threat model).
 */
export const DESTRUCTIVE_EVIDENCE = 4;

/** One model judgement about one candidate, already checked against the candidate set. */
export interface CandidateGrade {
  /** Position of the tool in the request's `tools`. */
  toolIndex: number;
  grade: number;
  why: string;
}

// Placeholder until the service lands (issue 3).
export {};

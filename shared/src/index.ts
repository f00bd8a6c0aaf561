export * from './schoolYear.ts';
export * from './steps.ts';
export * from './roles.ts';
export * from './questionBank.ts';
export * from './answers.ts';
export * from './records.ts';
export * from './collabDocument.ts';

export const PARTICIPANT_ID = 'longhaul.agent';

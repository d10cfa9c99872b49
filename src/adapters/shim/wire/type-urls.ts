/** The type_urls of the Any values skiff's task service puts in its replies (Pids info, Stats). */
export const TASK_STATS_TYPE_URL = 'skiff.v1.TaskStats';
export const PROCESS_DETAILS_TYPE_URL = 'skiff.v1.ProcessDetails';

import { z } from 'zod';
import { idSchema } from './common.ts';

export const markNotificationReadSchema = z.strictObject({ notificationId: idSchema });

import type { PrismaClient } from './generated/prisma/client.ts';
import type { Prisma } from './generated/prisma/client.ts';

/** A client or a transaction: repositories work on either. */
export type DbClient = PrismaClient | Prisma.TransactionClient;
export type { Prisma };

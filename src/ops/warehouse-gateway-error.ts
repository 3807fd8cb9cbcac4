import { MintpipeError } from '../errors.js';

/** The process holding the embedded warehouse serves a gateway that did not answer (stopping, or stuck). */
export class WarehouseGatewayError extends MintpipeError {
  override name = 'WarehouseGatewayError';
  constructor(readonly holderPid: number) {
    super(`the embedded warehouse is held by pid ${holderPid}, whose read-only gateway did not answer; try again, or stop that process`);
  }
}

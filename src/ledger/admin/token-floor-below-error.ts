/**
 * A token floor given below a token the ledger already handed out: harmless
 * (a new token is above its issue's last one anyway) but not what an
 * operator who read the highest token on GitHub meant, so it is refused.
 */
export class TokenFloorBelowError extends RangeError {
  constructor(
    readonly floor: number,
    readonly highestToken: number,
  ) {
    super(`a token floor of ${floor} is below the ledger's highest token, ${highestToken}`);
    this.name = "TokenFloorBelowError";
  }
}

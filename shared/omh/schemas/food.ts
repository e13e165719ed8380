/** Body schema of the IEEE 1752.2 (metabolic, draft) food entry. */
import { IEEE_TIME_FRAME, unitValue } from './blocks';
import { fullDate } from './formats';
import { enumOf, exactlyOneOf, number, object, onlyMembers, opt, req, string } from './validate';
import { MASS_UNITS, VOLUME_UNITS } from './vocabulary';

const mass = opt(unitValue(MASS_UNITS));

export const foodEntry01 = object({
  food_name: req(string),
  food_amount: req(
    exactlyOneOf({
      'a mass {value, unit}': unitValue(MASS_UNITS),
      'a volume {value, unit}': unitValue(VOLUME_UNITS),
      'a count {value} with no unit': object({ value: req(number) }, onlyMembers(['value'])),
    }),
  ),
  effective_time_frame: req(
    exactlyOneOf({
      'a time frame {date_time} or {time_interval}': IEEE_TIME_FRAME,
      'a day {full_date}': object({ full_date: req(fullDate) }),
    }),
  ),
  meal: opt(enumOf(['breakfast', 'lunch', 'dinner', 'snack'])),
  protein: mass,
  carbohydrate: mass,
  fat: mass,
  saturated_fat: mass,
  cholesterol: mass,
  sodium: mass,
  potassium: mass,
  fiber: mass,
  sugar: mass,
  calories: opt(unitValue(['kcal'])),
});

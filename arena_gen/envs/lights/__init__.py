"""arena_gen/envs/lights"""
